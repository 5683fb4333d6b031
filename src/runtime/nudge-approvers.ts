import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { type ApproverReach, nudgesDue } from '../approvals/approver-reach.js';
import { type NewOutboxEntry, outboxKeys } from '../store/outbox-message.js';
import type { Store } from '../store/store.js';

export interface NudgeDeps {
  readonly store: Store;
  readonly reach: ApproverReach;
  readonly logger: Logger;
  readonly now: () => number;
  /** Told which conversations got a nudge to send. */
  readonly kick: (conversationId: string) => void;
}

/** Pending requests looked at per sweep, oldest first: the ones nearest their nudges. */
const pendingPerSweep = 500;

/**
 * The sweep's part in reaching approvers: each pending request whose reminder or escalation time has come
 * gets its copies written to the outbox, keyed by request and occasion, so each goes out once whichever
 * process writes it and however often (invariant 8). The worker claims each row before it sends it.
 */
export function createApproverNudger(deps: NudgeDeps): () => Promise<number> {
  // Keys this process has written already: a sweep every few seconds then writes nothing for them. Only
  // a saving; after a restart the first sweep writes them again, and the outbox keeps the first.
  const written = new LRUCache<string, true>({ max: 10_000 });
  return async () => {
    const now = deps.now();
    const entries: NewOutboxEntry[] = [];
    for (const approval of await deps.store.approvals.pending({ limit: pendingPerSweep })) {
      for (const occasion of nudgesDue(approval, now, deps.reach)) {
        const key = outboxKeys.approverCopy(approval.requestId, occasion);
        if (written.has(key)) continue;
        entries.push({
          key,
          conversationId: approval.conversationId,
          turnId: approval.turnId,
          requestId: approval.requestId,
          message: { type: 'approver-copy', requestId: approval.requestId, occasion },
        });
      }
    }
    if (entries.length === 0) return 0;
    const added = await deps.store.outbox.enqueue(entries);
    for (const entry of entries) written.set(entry.key, true);
    for (const entry of added) {
      deps.logger.info({ requestId: entry.requestId, key: entry.key }, 'nudging approvers');
    }
    for (const conversationId of new Set(added.map((entry) => entry.conversationId)))
      deps.kick(conversationId);
    return added.length;
  };
}
