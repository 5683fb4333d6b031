import { transcriptOf } from '../../../test/support/store-reads.js';
import {
  type GrantDecision,
  grantByDecision,
  type RequestedCall,
  suspendWithRequests,
} from '../../../test/support/store-requests.js';
import { newApproval, newTurn, thread } from '../../../test/support/store-rows.js';
import { conversationId } from '../conversation-id.js';
import type { DeliveryProgress, NewOutboxEntry, OutboxEntry } from '../outbox-message.js';
import type { Approval } from '../records.js';
import type {
  ClaimedTurn,
  ClaimResult,
  ClaimToken,
  ConversationKey,
  Fence,
  Lease,
  NewApproval,
  NewTurn,
  Store,
} from '../store.js';
import type { ContractInspector } from './store-contract.js';

export const day = 24 * 60 * 60_000;
export const leaseA: Lease = { owner: 'proc-a', durationMs: 60_000 };
export const leaseB: Lease = { owner: 'proc-b', durationMs: 60_000 };

/** The claim, or a failure that says what the store answered instead. */
export function claimed(result: ClaimResult | undefined): ClaimedTurn {
  if (result?.type !== 'claimed') throw new Error(`expected a claim, got ${JSON.stringify(result)}`);
  return result;
}

export interface StartedTurn {
  readonly turn: NewTurn;
  readonly fence: Fence;
  readonly conversationId: string;
}

/** A turn queued and started by `lease` (proc-a unless told): running, its user message in the transcript. */
export async function startTurn(
  store: Store,
  options: { key?: ConversationKey; turnId?: string; lease?: Lease; text?: string } = {},
): Promise<StartedTurn> {
  const key = options.key ?? thread('1700.1');
  const turn = newTurn(key, options.turnId ?? 'turn-1', { text: options.text });
  await store.turns.enqueue(turn);
  const claim = claimed(await store.turns.claim(turn.turnId, options.lease ?? leaseA));
  return { turn, fence: claim.fence, conversationId: conversationId(key) };
}

/**
 * A pending approval for `call` in a started turn, made as production makes one: the turn suspends with a
 * batch holding it, and is left awaiting approval (see `suspendWithRequests` for several at once).
 */
export async function createApproval(
  store: Store,
  started: StartedTurn,
  toolCallId: string,
  options: Partial<NewApproval> & { createdAt: number },
): Promise<Approval> {
  const [approval] = await suspendWithRequests(store, started, [{ ...options, toolCallId }]);
  if (!approval) throw new Error(`the suspension stored no request for ${toolCallId}`);
  return approval;
}

/**
 * A request a turn makes after it resumed: its earlier requests are all decided, `lease` (proc-a unless
 * told) claims it for resume and it suspends on the new one, as a resumed run that needs people again does.
 */
export async function requestAfterResume(
  store: Store,
  started: StartedTurn,
  toolCallId: string,
  options: Partial<NewApproval> & { createdAt: number },
  lease: Lease = leaseA,
): Promise<Approval> {
  const resumed = claimed(await store.turns.claim(started.turn.turnId, lease));
  return createApproval(store, { ...started, fence: resumed.fence }, toolCallId, options);
}

/** A started turn parked on one pending approval, the way the runner leaves it. */
export async function awaitingTurn(
  store: Store,
  now: number,
  options: { key?: ConversationKey; turnId?: string; requiredApprovals?: number } = {},
): Promise<StartedTurn & { approval: Approval }> {
  const started = await startTurn(store, options);
  const [approval] = await suspendWithRequests(
    store,
    started,
    [{ toolCallId: 'call_1', createdAt: now, requiredApprovals: options.requiredApprovals ?? 1 }],
    { kv: { values: { step: 1 }, children: {} } },
  );
  if (!approval) throw new Error('the suspension stored no request for call_1');
  return { ...started, approval };
}

/** An answer row for a turn, as `complete` writes it. */
export function answerEntry(turnId: string, conversation: string, text = 'All done.'): NewOutboxEntry {
  return {
    key: `answer:${turnId}`,
    conversationId: conversation,
    turnId,
    message: { type: 'answer', turnId, text },
  };
}

/** A notice row in a conversation, keyed by `name`. */
export function noticeEntry(name: string, conversation: string): NewOutboxEntry {
  return {
    key: `notice:${name}`,
    conversationId: conversation,
    turnId: name,
    message: { type: 'turn-notice', turnId: name, notice: { type: 'failed', code: 'x', message: name } },
  };
}

/** An outbox row as the database holds it, whatever its status (undefined: no such row). */
export async function outboxRow(inspect: ContractInspector, id: number): Promise<OutboxEntry | undefined> {
  return (await inspect.outbox()).find((entry) => entry.id === id);
}

/**
 * Everything the port (and the inspector) shows about a turn and its conversation. Taken before and after
 * a write that must be refused: the two must be equal.
 */
export async function observe(store: Store, inspect: ContractInspector, started: StartedTurn) {
  const { turn } = started;
  return {
    turn: await store.turns.get(turn.turnId),
    conversation: await store.conversations.get(started.conversationId),
    messages: await transcriptOf(store, started.conversationId),
    nested: await transcriptOf(store, `${started.conversationId}>call_1`),
    approvals: await store.approvals.forTurn(turn.turnId),
    resumeKv: await store.turns.resumeKv(turn.turnId),
    audit: await store.audit.list(),
    outbox: await inspect.outbox(),
    tools: await inspect.toolExecutions(),
  };
}

export {
  type GrantDecision,
  grantByDecision,
  newApproval,
  newTurn,
  type RequestedCall,
  suspendWithRequests,
  thread,
};

/** Rows written unclaimed, then claimed by `lease` (token 1, one attempt), as a worker takes them. */
export async function enqueueClaimed(
  store: Store,
  entries: readonly NewOutboxEntry[],
  lease: Lease,
): Promise<OutboxEntry[]> {
  const claimed: OutboxEntry[] = [];
  for (const row of await store.outbox.enqueue(entries)) {
    const taken = await store.outbox.claim(row.id, lease);
    if (!taken) throw new Error(`could not claim outbox row ${row.id}`);
    claimed.push(taken);
  }
  return claimed;
}

/** One delivery completed on its own (the worker batches them; the contract is the same for one). */
export async function completeOne(
  store: Store,
  id: number,
  claim: ClaimToken,
  progress: DeliveryProgress,
): Promise<boolean> {
  const [done] = await store.outbox.complete([{ id, claim, progress }]);
  return done ?? false;
}
