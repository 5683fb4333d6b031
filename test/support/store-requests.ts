import { conversationId } from '../../src/store/conversation-id.js';
import { emptyKvSnapshot, type KvSnapshot } from '../../src/store/kv-snapshot.js';
import type { Approval, Grant } from '../../src/store/records.js';
import type { Effects, Fence, NewApproval, NewGrant, NewTurn, Store } from '../../src/store/store.js';
import { newApproval, newTurn, thread } from './store-rows.js';

/** A call to ask about: its id, when it is asked (its expiry counts from then) and any column to set. */
export type RequestedCall = Partial<NewApproval> & {
  readonly toolCallId: string;
  readonly createdAt: number;
};

/**
 * Requests for calls of a running turn, made the only way production makes them: the turn suspends with a
 * batch holding them (and `kv`, and `effects`). The turn is left awaiting approval; returns the rows as
 * stored, in the batch's order.
 */
export async function suspendWithRequests(
  store: Store,
  running: { readonly turn: NewTurn; readonly fence: Fence },
  calls: readonly RequestedCall[],
  options: { kv?: KvSnapshot; effects?: Effects } = {},
): Promise<Approval[]> {
  const approvals = calls.map(({ toolCallId, ...columns }) => newApproval(running.turn, toolCallId, columns));
  return store.turns.suspend(running.fence, options.kv ?? emptyKvSnapshot, options.effects, {
    transcriptId: conversationId(running.turn),
    approvals,
  });
}

/** What a grant covers and who makes it; the tool is `shell` unless told. */
export type GrantDecision = Omit<NewGrant, 'toolName' | 'createdBy' | 'sourceRequestId'> & {
  readonly toolName?: string;
  readonly createdBy: string;
};

/**
 * A grant made the only way production makes one: a request of a turn of its own (in a thread of its own)
 * decided "always" by `createdBy` with the grant's fields. Returns the grant the decision left standing
 * (an identical one still standing, when there was one) and the request that made it.
 */
export async function grantByDecision(
  store: Store,
  now: number,
  decision: GrantDecision,
): Promise<{ grant: Grant; request: Approval }> {
  const { toolName = 'shell', createdBy, ...grant } = decision;
  const asked =
    (await store.approvals.pending()).length + (await store.approvals.recentlyDecided(10_000)).length;
  const turn = newTurn(thread(`2100.${asked + 1}`), `grant-turn-${asked + 1}`);
  await store.turns.enqueue(turn);
  const claim = await store.turns.claim(turn.turnId, { owner: 'grant-maker', durationMs: 60_000 });
  if (claim?.type !== 'claimed') throw new Error(`could not start ${turn.turnId}: ${JSON.stringify(claim)}`);
  const [request] = await suspendWithRequests(store, { turn, fence: claim.fence }, [
    { toolCallId: 'call_1', createdAt: now, toolName, permissionType: toolName },
  ]);
  if (!request) throw new Error(`${turn.turnId} stored no request`);
  const result = await store.approvals.resolve({
    requestId: request.requestId,
    decision: 'allowed',
    decidedBy: createdBy,
    always: true,
    grant,
  });
  if (result.type !== 'decided') throw new Error(`could not decide ${request.requestId}: ${result.type}`);
  const filter = grant.scope === 'channel' ? { channelId: grant.scopeId } : { conversationId: grant.scopeId };
  const standing = (await store.grants.list(filter)).find(
    (each) =>
      each.toolName === toolName &&
      JSON.stringify(each.match) === JSON.stringify(grant.match ?? null) &&
      each.argsHash === (grant.argsHash ?? null),
  );
  if (!standing) throw new Error(`the decision of ${request.requestId} left no usable grant`);
  return { grant: standing, request: result.approval };
}
