import { hashArguments } from '../../src/agent/hash-arguments.js';
import { conversationId } from '../../src/store/conversation-id.js';
import type { Turn } from '../../src/store/records.js';
import type { ConversationKey, NewApproval, NewTurn } from '../../src/store/store.js';

export const teamId = 'T0HOLDFAST';
export const channelId = 'C0OPS';

/** A Slack thread in the test workspace. */
export function thread(threadTs: string, channel = channelId): ConversationKey {
  return { teamId, channelId: channel, threadTs };
}

/** A user message that starts a turn; `ts` defaults to the thread's ts (the mention that opened it). */
export function newTurn(
  key: ConversationKey,
  turnId: string,
  options: { ts?: string; text?: string; user?: string } = {},
): NewTurn {
  const ts = options.ts ?? key.threadTs;
  return {
    ...key,
    turnId,
    triggerKey: `${key.channelId}:${ts}`,
    triggerTs: ts,
    requestedBy: options.user ?? 'UREQUESTER',
    inputText: options.text ?? 'restart the web tier',
  };
}

/** A pending approval for a call in the turn's conversation; expires a day after `createdAt`. */
export function newApproval(
  turn: NewTurn,
  toolCallId: string,
  options: Partial<NewApproval> & { createdAt: number },
): NewApproval {
  const id = conversationId(turn);
  const args = options.arguments ?? { command: 'systemctl restart web' };
  const { createdAt, ...rest } = options;
  return {
    requestId: `apr_${turn.turnId}_${toolCallId}`,
    conversationId: id,
    transcriptId: id,
    turnId: turn.turnId,
    toolCallId,
    toolName: 'shell',
    permissionType: 'shell',
    summary: 'run `systemctl restart web`',
    arguments: args,
    argsHash: hashArguments(JSON.stringify(args)),
    reason: null,
    requestedBy: turn.requestedBy,
    requiredApprovals: 1,
    expiresAt: createdAt + 24 * 60 * 60_000,
    ...rest,
  };
}

/** Turn `turn_1` as a store reads it back, queued since just before `at` (for the pure plans' tables). */
export function queuedTurn(conversationId: string, at: number): Turn {
  return {
    id: 'turn_1',
    seq: 7,
    conversationId,
    status: 'queued',
    triggerKey: 'C1:1700.2',
    triggerTs: '1700.2',
    requestedBy: 'UASKER',
    inputText: 'restart web',
    leaseOwner: null,
    leaseExpiresAt: null,
    leaseToken: 2,
    attempts: 0,
    errorCode: null,
    errorMessage: null,
    stoppedBy: null,
    createdAt: at - 10,
    updatedAt: at - 10,
  };
}
