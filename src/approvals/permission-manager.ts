import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import type { PermissionChecker, PermissionRequest, PermissionVerdict } from '../agent/permission-checker.js';
import type { NameOf } from '../agent/person-name.js';
import { nameFor } from '../agent/person-name.js';
import { personQuestionType, questionHash } from '../agent/person-question.js';
import type { ToolCallSite } from '../agent/tool-call-site.js';
import { type NewOutboxEntry, outboxKeys } from '../store/outbox-message.js';
import type { Approval, Grant } from '../store/records.js';
import type { Store } from '../store/store.js';
import { grantCovers } from './grant-covers.js';
import { matchRules } from './match-rule.js';
import type { Policy } from './policy.js';
import { expiryFor, quorumFor } from './policy-lookup.js';

export interface PermissionManagerOptions {
  readonly store: Store;
  readonly policy: Policy;
  readonly logger: Logger;
  readonly now?: () => number;
  /** Opaque request ids; at least 128 random bits, since a button value is all a click carries. */
  readonly newRequestId?: () => string;
  readonly defaultExpiryMs?: number;
  /** Names the approver who denied a call in what the model is told (never their id); see `NameOf`. */
  readonly nameOf?: NameOf;
}

/** How the result of a call refused by a deny rule begins, after `Not run: `. */
const policyDenialLead = 'blocked by policy';

const defaultApprovalExpiryMs = 24 * 60 * 60_000;

function newApprovalRequestId(): string {
  return `apr_${randomBytes(18).toString('base64url')}`;
}

/**
 * The permission manager. Its single caller is the tool runtime, which hands it the call's site, so the
 * row is keyed by the right (transcript, tool_call_id).
 * Order: deny rules → auto-approve-all → always-allow grant → allow rules (and the tool's own allow) →
 * stored decision for this call → a new pending row to create.
 */
export function createPermissionManager(options: PermissionManagerOptions): PermissionChecker {
  const { store, policy, logger } = options;
  const now = options.now ?? Date.now;
  const newRequestId = options.newRequestId ?? newApprovalRequestId;
  const defaultExpiryMs = options.defaultExpiryMs ?? defaultApprovalExpiryMs;

  /** The first grant covering the call lets it through, once; its use, audit row and notice commit together. */
  const useGrant = async (
    call: ToolCallSite,
    request: PermissionRequest,
    args: Readonly<Record<string, unknown>>,
  ): Promise<PermissionVerdict | undefined> => {
    const scopes = { conversationId: call.conversationId, channelId: call.channelId };
    const subject = { toolName: request.toolName, args, argsHash: request.argsHash };
    for (const grant of await store.grants.usable(request.toolName, scopes)) {
      if (!grantCovers(grant, subject)) continue;
      const notice = grantNotice(grant, request, call);
      const used = await store.grants.use(
        grant.id,
        { conversationId: call.conversationId, turnId: call.turnId, toolCallId: call.toolCallId },
        { outbox: [notice] },
      );
      // Used up, revoked or expired since it was read: the next grant may still cover the call.
      if (!used) continue;
      logger.info(
        {
          tool: request.toolName,
          toolCallId: call.toolCallId,
          grantId: used.id,
          grantedBy: used.createdBy,
          scope: used.scope,
          scopeId: used.scopeId,
          covers: used.argsHash !== null ? 'exact call' : used.match ? { match: used.match } : 'every call',
        },
        'allowed by a grant',
      );
      return { type: 'allowed', source: 'grant', by: used.createdBy };
    }
    return undefined;
  };

  return {
    question(site, toolName, question) {
      return {
        requestId: newRequestId(),
        conversationId: site.conversationId,
        transcriptId: site.transcriptId,
        turnId: site.turnId,
        toolCallId: site.toolCallId,
        toolName,
        permissionType: personQuestionType,
        summary: question.message,
        arguments: question,
        argsHash: questionHash(question),
        reason: null,
        requestedBy: site.requestedBy,
        requiredApprovals: 1,
        expiresAt: now() + (expiryFor(policy, toolName, personQuestionType) ?? defaultExpiryMs),
      };
    },
    async decide(call: ToolCallSite, request: PermissionRequest): Promise<PermissionVerdict> {
      const args = isRecord(request.args) ? request.args : {};
      const rule = matchRules(policy.rules, { toolName: request.toolName, args });

      // Deny always wins: over grants, over auto-approve-all, over an earlier human "allow".
      if (rule.type === 'deny') {
        const reason = rule.rule.reason ?? `blocked by policy (rule for ${rule.rule.tool})`;
        await store.audit.record({
          actor: 'policy',
          kind: 'tool.denied_by_policy',
          conversationId: call.conversationId,
          data: { tool: request.toolName, toolCallId: call.toolCallId, turnId: call.turnId, reason },
        });
        // The lead is fixed, so a reader of the result can tell a refusal by policy from other calls not run.
        const said = rule.rule.reason ? `${policyDenialLead}: ${rule.rule.reason}` : reason;
        return { type: 'denied', source: 'policy', reason: `${said}.`, guidance: 'Do not retry it.' };
      }
      if (policy.autoApproveAll) return { type: 'allowed', source: 'auto-approve' };
      if (rule.type === 'allow') return { type: 'allowed', source: 'policy' };
      if (rule.type === 'none' && request.toolPermission.type === 'allow')
        return { type: 'allowed', source: 'tool' };

      // Invariant 4: on resume the stored decision is the answer, with no human and no model involved.
      const existing =
        request.stored !== undefined
          ? request.stored
          : await store.approvals.forCall(call.transcriptId, call.toolCallId);
      if (existing) return decisionFrom(existing, request, options.nameOf);

      // A grant stands in for a person: it is only consulted for a call that would otherwise ask.
      const granted = await useGrant(call, request, args);
      if (granted) return granted;

      const permission =
        request.toolPermission.type === 'ask'
          ? request.toolPermission
          : { type: 'ask' as const, permissionType: request.toolName, summary: `run ${request.toolName}` };
      return {
        type: 'ask',
        approval: {
          requestId: newRequestId(),
          conversationId: call.conversationId,
          transcriptId: call.transcriptId,
          turnId: call.turnId,
          toolCallId: call.toolCallId,
          toolName: request.toolName,
          permissionType: permission.permissionType,
          summary: permission.summary,
          arguments: request.args,
          argsHash: request.argsHash,
          reason: permission.reason ?? null,
          requestedBy: call.requestedBy,
          requiredApprovals: quorumFor(policy, request.toolName, permission.permissionType),
          expiresAt:
            now() + (expiryFor(policy, request.toolName, permission.permissionType) ?? defaultExpiryMs),
        },
      };
    },
  };
}

async function decisionFrom(
  approval: Approval,
  request: PermissionRequest,
  nameOf: NameOf | undefined,
): Promise<PermissionVerdict> {
  // The card shows the row's arguments, so they must match the call as well as its hash does.
  const sameArguments = sameStoredArguments(approval.arguments, request.args);
  if (approval.argsHash !== request.argsHash && sameArguments && request.definitionBound) {
    // The arguments are the ones approved; what changed is the tool, which its server redefined since.
    return {
      type: 'denied',
      source: 'approval',
      reason:
        'the tool changed after this call was approved (its server changed its description or arguments), so the call was refused.',
      guidance:
        'Tell the user the tool changed; call it again only if they still want it, so it is approved as it is now.',
    };
  }
  if (approval.argsHash !== request.argsHash || !sameArguments) {
    return {
      type: 'denied',
      source: 'approval',
      reason: 'the arguments differ from the ones that were approved, so the call was refused.',
      guidance: 'Do not retry it unless the user asks again.',
    };
  }
  switch (approval.decision) {
    case null:
      return { type: 'pending', approval };
    case 'allowed':
      return { type: 'allowed', source: 'approval', by: approval.decidedBy ?? undefined };
    case 'denied': {
      // A name, not an id: the model passes this sentence on to people.
      const denier = await nameFor(nameOf, approval.decidedBy ?? undefined, 'an approver');
      return {
        type: 'denied',
        source: 'approval',
        by: approval.decidedBy ?? undefined,
        reason: approval.decisionReason
          ? `denied by ${denier}, who said: "${approval.decisionReason}".`
          : `denied by ${denier}.`,
        guidance: 'Do not retry it unless the user asks again.',
      };
    }
    case 'expired':
      return {
        type: 'denied',
        source: 'expired',
        reason:
          'the approval request timed out: it expired before anyone decided (nobody allowed or denied it).',
        guidance: 'Ask the user whether to request it again.',
      };
  }
}

/** Compared as they round-trip through the row's JSON column, which is where the card reads them from. */
function sameStoredArguments(stored: unknown, args: unknown): boolean {
  const asStored: unknown = JSON.parse(JSON.stringify({ arguments: args })).arguments;
  return isDeepStrictEqual(stored, asStored);
}

function grantNotice(grant: Grant, request: PermissionRequest, call: ToolCallSite): NewOutboxEntry {
  const covers =
    grant.argsHash !== null
      ? ({ type: 'exact' } as const)
      : grant.match === null
        ? ({ type: 'tool' } as const)
        : ({ type: 'pattern', patterns: { ...grant.match } } as const);
  const shown = JSON.stringify(request.args) ?? '';
  return {
    key: outboxKeys.turnNotice(call.turnId, `grant:${call.transcriptId}:${call.toolCallId}`),
    conversationId: call.conversationId,
    turnId: call.turnId,
    message: {
      type: 'turn-notice',
      turnId: call.turnId,
      notice: {
        type: 'grant-used',
        tool: request.toolName,
        call: callPreview(request.args, shown),
        grantedBy: grant.createdBy,
        scope: grant.scope,
        covers,
        expiresAt: grant.expiresAt,
        // The use this call takes is already counted.
        usesLeft: grant.usesLeft === null ? null : Math.max(0, grant.usesLeft - 1),
      },
    },
  };
}

/** The call as the thread sees it: its one text argument, or its arguments as JSON, shortened. */
function callPreview(args: unknown, json: string): string {
  const values = isRecord(args) ? Object.values(args) : [];
  const only = values.length === 1 && typeof values[0] === 'string' ? values[0] : json;
  return only.length > 300 ? `${only.slice(0, 300)}…` : only;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
