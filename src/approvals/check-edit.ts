import type { Logger } from 'pino';
import { canonicalJson, hashArguments, hashCall } from '../agent/hash-arguments.js';
import { KeyValueState } from '../agent/kv.js';
import { checkAnswer, questionOf } from '../agent/person-question.js';
import type { Tool, ToolContext } from '../agent/tool.js';
import type { Approval } from '../store/records.js';
import type { ArgumentsEdit } from '../store/rules/edit-arguments.js';
import { matchRules } from './match-rule.js';
import type { Policy } from './policy.js';

/** Why an edit cannot be applied; the approver is told, and the request stays as it was. */
export type EditRefusal =
  | 'invalid-arguments'
  | 'denied-by-policy'
  | 'permission-changed'
  | 'tool-unavailable';

export type EditCheck =
  | { readonly type: 'edit'; readonly edit: ArgumentsEdit }
  /** The edited arguments are the ones the request already holds: an ordinary approval. */
  | { readonly type: 'unchanged' }
  | { readonly type: 'refused'; readonly reason: EditRefusal; readonly problem: string };

export interface CheckEditDeps {
  readonly policy: Policy;
  /** The tool the request is for, as the conversation offers it; undefined when it offers none by that name. */
  readonly tool: Tool | undefined;
  readonly logger: Logger;
}

/**
 * An approver's edited arguments, checked as the call itself would be: the tool's schema parses them, deny
 * rules still win (an edit cannot turn a request into a call policy forbids), and the call must still be
 * the kind of permission it was asked under, since that chose its approvers, quorum and expiry. The
 * stored text is what the resumed call parses, so its hash is the one the decision pins.
 */
export async function checkEdit(
  deps: CheckEditDeps,
  approval: Approval,
  edited: unknown,
): Promise<EditCheck> {
  const question = questionOf(approval);
  if (question) return checkedAnswer(approval, question, edited);
  const { tool } = deps;
  if (!tool) {
    return {
      type: 'refused',
      reason: 'tool-unavailable',
      problem: `\`${approval.toolName}\` cannot be edited here (a nested agent asked for it); allow or deny it as it is.`,
    };
  }
  const parsed = tool.parse(edited);
  if (!parsed.success) {
    return {
      type: 'refused',
      reason: 'invalid-arguments',
      problem: `Not valid for ${tool.name}: ${parsed.error}`,
    };
  }
  const argumentsText = JSON.stringify(parsed.data) ?? '{}';
  const argsHash = hashCall(tool, parsed.data, argumentsText);
  if (argsHash === approval.argsHash) return { type: 'unchanged' };
  const args = isRecord(parsed.data) ? parsed.data : {};
  const rule = matchRules(deps.policy.rules, { toolName: tool.name, args });
  if (rule.type === 'deny') {
    const why = rule.rule.reason ?? `the policy's deny rule for ${rule.rule.tool}`;
    return {
      type: 'refused',
      reason: 'denied-by-policy',
      problem: `Blocked by policy: ${why}. Deny rules apply to edited calls too.`,
    };
  }
  const permission = await tool.permission(parsed.data, scratchContext(approval, deps.logger));
  if (permission.type === 'ask' && permission.permissionType !== approval.permissionType) {
    return {
      type: 'refused',
      reason: 'permission-changed',
      problem:
        `The edited call needs \`${permission.permissionType}\` approval, not \`${approval.permissionType}\`. ` +
        'Deny this request and ask for the call you want instead.',
    };
  }
  return {
    type: 'edit',
    edit: {
      fromArgsHash: approval.argsHash,
      arguments: parsed.data,
      argumentsText,
      argsHash,
      summary: permission.type === 'ask' ? permission.summary : `run ${tool.name}`,
    },
  };
}

/**
 * The requester's answer to a running call's question: the form's values, checked against the schema the
 * call asked with, become the request's arguments (what the call is given when it runs again).
 */
function checkedAnswer(
  approval: Approval,
  question: NonNullable<ReturnType<typeof questionOf>>,
  answered: unknown,
): EditCheck {
  if (question.kind === 'link') return { type: 'unchanged' };
  const check = checkAnswer(question, isRecord(answered) ? answered : {});
  if (check.type === 'invalid') {
    const [field, problem] = [...check.problems][0] ?? ['', 'The answer is not valid.'];
    return {
      type: 'refused',
      reason: 'invalid-arguments',
      problem: field ? `${field}: ${problem}` : problem,
    };
  }
  const argumentsText = canonicalJson(check.content);
  return {
    type: 'edit',
    edit: {
      fromArgsHash: approval.argsHash,
      arguments: check.content,
      argumentsText,
      argsHash: hashArguments(argumentsText),
      summary: approval.summary,
    },
  };
}

/**
 * What `permission` sees when asked about an edit: the call's site, and plugin state of its own, so that
 * asking changes nothing the turn will read when it resumes (it asks again then, with the real state).
 */
function scratchContext(approval: Approval, logger: Logger): ToolContext {
  return {
    transcriptId: approval.transcriptId,
    turnId: approval.turnId,
    toolCallId: approval.toolCallId,
    requestedBy: approval.requestedBy,
    kv: new KeyValueState(),
    signal: AbortSignal.timeout(2_000),
    logger,
    runAgent: () => Promise.reject(new Error('an edit is only checked, never run')),
    answerTo: async () => undefined,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
