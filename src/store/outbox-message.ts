import { z } from 'zod';

/**
 * What holdfast shows people, as data. The core writes these in the commit that causes them; a front end
 * (Slack, the local workspace) turns each into messages when it delivers the row. Text for people is made
 * there, so nothing here is mrkdwn.
 */
const turnNoticeSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('failed'), code: z.string(), message: z.string() }),
  /** Someone pressed Stop; `by` is their user id. */
  z.object({ type: z.literal('stopped'), by: z.string() }),
  /** A call ran with no card because a grant covered it: said in the thread, every time. */
  z.object({
    type: z.literal('grant-used'),
    tool: z.string(),
    /** The call's arguments, shortened, as the thread may see them. */
    call: z.string(),
    grantedBy: z.string(),
    scope: z.enum(['conversation', 'channel']),
    /** What the grant covers: `exact`, `tool` (every call of it), or the pattern of one argument. */
    covers: z.discriminatedUnion('type', [
      z.object({ type: z.literal('exact') }),
      z.object({ type: z.literal('tool') }),
      z.object({ type: z.literal('pattern'), patterns: z.record(z.string(), z.string()) }),
    ]),
    expiresAt: z.number().nullable(),
    usesLeft: z.number().nullable(),
  }),
  /** A request can no longer be allowed: its tool's server changed the tool after the card was made. */
  z.object({ type: z.literal('tool-changed'), tool: z.string(), changed: z.string().optional() }),
]);
export type TurnNotice = z.output<typeof turnNoticeSchema>;

const directNoticeSchema = z.discriminatedUnion('type', [
  /** Something meant for a thread could not be posted there, and never will be. */
  z.object({
    type: z.literal('undeliverable'),
    what: z.enum(['approval-card', 'card-update', 'answer', 'turn-notice']),
    channelId: z.string(),
    reason: z.string(),
    requestId: z.string().optional(),
    turnId: z.string().optional(),
  }),
]);
export type DirectNotice = z.output<typeof directNoticeSchema>;

/** The most calls one plan's card lists; a larger batch gets a card per call. */
export const PLAN_MAX_REQUESTS = 12;

/** The requests of a plan's card, in the order of their calls: two or more. */
export const planRequestIds = z.array(z.string()).min(2).max(PLAN_MAX_REQUESTS);

export const outboxMessageSchema = z.discriminatedUnion('type', [
  /** The approval card for a pending request, posted in its thread. */
  z.object({ type: z.literal('approval-card'), requestId: z.string() }),
  /**
   * One card for the calls of one assistant message that wait together: each with its own buttons, and
   * nothing runs until every one is decided. The message is a card of each request it lists.
   */
  z.object({ type: z.literal('approval-plan'), requestIds: planRequestIds }),
  /**
   * Copies of a request's card, each in the direct message of one person who may decide it: when it is
   * asked (`request`), halfway to its expiry (`reminder`), and near the end to the escalation group
   * (`escalation`). Each copy is a card of the request like the one in the thread.
   */
  z.object({
    type: z.literal('approver-copy'),
    requestId: z.string(),
    occasion: z.enum(['request', 'reminder', 'escalation']),
  }),
  /** Every card of a request rewritten with its current state (a vote, the decision, expiry). */
  z.object({ type: z.literal('card-update'), requestId: z.string() }),
  /** A turn's final answer; the front end may split it into several messages. */
  z.object({ type: z.literal('answer'), turnId: z.string(), text: z.string() }),
  z.object({ type: z.literal('turn-notice'), turnId: z.string(), notice: turnNoticeSchema }),
  z.object({ type: z.literal('direct-message'), userId: z.string(), notice: directNoticeSchema }),
]);
export type OutboxMessage = z.output<typeof outboxMessageSchema>;
export type ApproverCopyOccasion = Extract<OutboxMessage, { type: 'approver-copy' }>['occasion'];

/** Where a delivered part landed: what Slack answered (`ts`) in which channel. */
const sentPartSchema = z.object({ channel: z.string(), ts: z.string() });
export type SentPart = z.output<typeof sentPartSchema>;

export const deliveryProgressSchema = z.object({
  /**
   * The parts a delivery was cut into at its first attempt (an answer's chunks), kept so a retry sends
   * exactly the same parts and resumes at the first one not yet sent.
   */
  parts: z.array(z.string()).optional(),
  /** Recorded in order as Slack answers; `sent.length` is the index of the next part to send. */
  sent: z.array(sentPartSchema),
});
export type DeliveryProgress = z.output<typeof deliveryProgressSchema>;

/** An outbox row to write, keyed so the same effect is never written twice. */
export interface NewOutboxEntry {
  /** Unique per effect (`card:<request>`, `answer:<turn>`); a second insert of a key is a no-op. */
  readonly key: string;
  readonly conversationId: string;
  readonly turnId?: string;
  readonly requestId?: string;
  readonly message: OutboxMessage;
}

export type OutboxStatus = 'pending' | 'sent' | 'failed';

export interface OutboxClaim {
  readonly owner: string;
  /** Fencing token: incremented by every claim; a write with an older token is refused. */
  readonly token: number;
  readonly expiresAt: number;
}

export interface OutboxEntry {
  readonly id: number;
  readonly key: string;
  readonly conversationId: string;
  readonly turnId: string | null;
  readonly requestId: string | null;
  readonly message: OutboxMessage;
  readonly status: OutboxStatus;
  readonly attempts: number;
  readonly nextAttemptAt: number;
  readonly claim: OutboxClaim | null;
  /**
   * A previous claim lapsed with no outcome recorded: its last part may have reached Slack. The sender
   * looks for it before posting again.
   */
  readonly inDoubt: boolean;
  readonly progress: DeliveryProgress;
  readonly lastError: string | null;
  readonly createdAt: number;
}

/** Keys of the effects the core writes, in one place so every writer agrees on them. */
export const outboxKeys = {
  card: (requestId: string) => `card:${requestId}`,
  /** Keyed by the plan's first request: a request is in one plan at most. */
  plan: (firstRequestId: string) => `plan:${firstRequestId}`,
  cardUpdate: (requestId: string, state: string) => `card-update:${requestId}:${state}`,
  approverCopy: (requestId: string, occasion: string) => `copies:${requestId}:${occasion}`,
  answer: (turnId: string) => `answer:${turnId}`,
  turnNotice: (turnId: string, kind: string) => `notice:${turnId}:${kind}`,
  undeliverable: (failedKey: string) => `undeliverable:${failedKey}`,
} as const;
