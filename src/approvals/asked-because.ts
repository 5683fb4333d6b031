import { matchRules } from './match-rule.js';
import type { Policy } from './policy.js';

/** Why a call waits for a person: a policy rule that asks for it, or its tool asking by default. */
export type AskedBecause =
  | { readonly type: 'rule'; readonly tool: string; readonly match: Readonly<Record<string, string>> }
  | { readonly type: 'tool-default' };

/**
 * The reason the permission manager asked, found again the same way it decides (see
 * `createPermissionManager`): an `ask` rule that matches, otherwise the tool's own default, since a call
 * that an allow rule, a grant or auto-approve let through never waits.
 */
export function askedBecause(policy: Policy, toolName: string, args: unknown): AskedBecause {
  const record = typeof args === 'object' && args !== null && !Array.isArray(args) ? args : {};
  const rule = matchRules(policy.rules, { toolName, args: record as Record<string, unknown> });
  if (rule.type === 'ask') return { type: 'rule', tool: rule.rule.tool, match: { ...rule.rule.match } };
  return { type: 'tool-default' };
}
