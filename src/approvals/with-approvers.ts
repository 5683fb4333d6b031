import type { Policy } from './policy.js';

/** HOLDFAST_APPROVERS and friends add to the policy file's defaults rather than replace them. */
export function withEnvironmentApprovers(
  policy: Policy,
  environment: {
    readonly approvers: { readonly users: readonly string[]; readonly groups: readonly string[] };
    readonly allowSelfApproval: boolean;
  },
): Policy {
  const widened = withApprovers(policy, environment.approvers.users, environment.approvers.groups);
  return {
    ...widened,
    approvers: {
      ...widened.approvers,
      allowSelfApproval: policy.approvers.allowSelfApproval || environment.allowSelfApproval,
    },
  };
}

export function withApprovers(policy: Policy, users: readonly string[], groups: readonly string[]): Policy {
  return {
    ...policy,
    approvers: {
      ...policy.approvers,
      default: {
        users: [...new Set([...policy.approvers.default.users, ...users])],
        groups: [...new Set([...policy.approvers.default.groups, ...groups])],
      },
    },
  };
}
