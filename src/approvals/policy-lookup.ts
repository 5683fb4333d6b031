import type { ApproverSet, Policy } from './policy.js';

/** Per-tool settings beat per-permission-type settings, which beat the default. */
function lookup<Value>(
  table: Record<string, Value>,
  toolName: string,
  permissionType: string,
): Value | undefined {
  return table[toolName] ?? table[permissionType];
}

export function approversFor(policy: Policy, toolName: string, permissionType: string): ApproverSet {
  return lookup(policy.approvers.overrides, toolName, permissionType) ?? policy.approvers.default;
}

export function quorumFor(policy: Policy, toolName: string, permissionType: string): number {
  return lookup(policy.approvers.quorum, toolName, permissionType) ?? 1;
}

export function expiryFor(policy: Policy, toolName: string, permissionType: string): number | undefined {
  return lookup(policy.expiry.overrides, toolName, permissionType) ?? policy.expiry.default;
}
