import { z } from 'zod';

/**
 * The policy file (`HOLDFAST_POLICY`, YAML). Deny always wins: over allow rules, over always-allow
 * grants and over `autoApproveAll`.
 */
const ruleAction = z.enum(['allow', 'deny', 'ask']);

const policyRuleSchema = z.strictObject({
  /** Tool name, or a glob over tool names (`"*"`, `"sql_*"`). */
  tool: z.string().min(1),
  /** Globs on named arguments; every entry must match (string arguments only; others are JSON-encoded). */
  match: z.record(z.string(), z.string()).default({}),
  action: ruleAction,
  /** Shown to the model (and in the audit log) when the rule denies. */
  reason: z.string().optional(),
});

const slackUserId = z.string().regex(/^[UW][A-Z0-9]{2,}$/, 'a Slack user id such as U012ABCDEF');
const slackGroupId = z.string().regex(/^S[A-Z0-9]{2,}$/, 'a Slack user-group id such as S012ABCDEF');

const approverSetSchema = z.strictObject({
  users: z.array(slackUserId).default([]),
  groups: z.array(slackGroupId).default([]),
});

const duration = z
  .string()
  .regex(/^\d+\s*(ms|s|m|h|d)$/, 'a duration such as 30m, 4h or 2d')
  .transform(parseDuration);

export const policySchema = z.strictObject({
  rules: z.array(policyRuleSchema).default([]),
  approvers: z
    .strictObject({
      default: approverSetSchema.default({ users: [], groups: [] }),
      /** Keyed by tool name or permission type; replaces the default set for those calls. */
      overrides: z.record(z.string(), approverSetSchema).default({}),
      allowSelfApproval: z.boolean().default(false),
      /** Distinct approvers required, keyed by tool name or permission type (default 1). */
      quorum: z.record(z.string(), z.number().int().min(1).max(10)).default({}),
    })
    .default({ default: { users: [], groups: [] }, overrides: {}, allowSelfApproval: false, quorum: {} }),
  expiry: z
    .strictObject({
      default: duration.optional(),
      /** Keyed by tool name or permission type. */
      overrides: z.record(z.string(), duration).default({}),
    })
    .default({ overrides: {} }),
  /** For sandboxes: every call that no deny rule stops runs without asking. */
  autoApproveAll: z.boolean().default(false),
});

export type PolicyRule = z.output<typeof policyRuleSchema>;
export type ApproverSet = z.output<typeof approverSetSchema>;
export type Policy = z.output<typeof policySchema>;

export const emptyPolicy: Policy = policySchema.parse({});

export function parseDuration(text: string): number {
  const match = /^(\d+)\s*(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) throw new RangeError(`not a duration: ${text}`);
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[
    match[2] as 'ms' | 's' | 'm' | 'h' | 'd'
  ];
  return Number(match[1]) * unit;
}
