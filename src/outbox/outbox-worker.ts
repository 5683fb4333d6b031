import PQueue from 'p-queue';
import type { Logger } from 'pino';
import type { DeliveryProgress, OutboxEntry, SentPart } from '../store/outbox-message.js';
import type { ClaimToken, CompletedDelivery, Lease, Store } from '../store/store.js';
import { isStoreFault, StoreStoppedError } from '../store/store-errors.js';
import { claimStep } from './claim-step.js';
import type { DeliveryPort } from './delivery-port.js';
import { cardRequestsOf, laneOf, type OutboxLane } from './outbox-lanes.js';
import { defaultBackoffMs, type RetryPolicy, reasonOf, retryPlan } from './retry-plan.js';
import { undeliverableNotice } from './undeliverable-notice.js';

export { defaultBackoffMs } from './retry-plan.js';

export interface OutboxWorkerOptions extends RetryPolicy {
  readonly store: Store;
  readonly port: DeliveryPort;
  readonly identity: { readonly owner: string; ownerGone(owner: string): boolean };
  /**
   * How long a claim holds. Longer than any single send can take (the Slack client's timeout), so a claim
   * never lapses while a post is still in flight: that is what makes a lapsed claim safe to reconcile.
   */
  readonly claimMs: number;
  readonly logger: Logger;
  readonly now?: () => number;
  /** Sends in flight at once, across conversations; rows of one conversation always go one at a time. */
  readonly concurrency?: number;
  /** Told when a row is given up on (after the failure and the notice to the requester are written). */
  readonly onGiveUp?: (entry: OutboxEntry, reason: string) => void;
  /** Told when every part of a row has reached the port (a card now shows in its thread). */
  readonly onSent?: (entry: OutboxEntry) => void;
}

/**
 * Sends the outbox: claims a row, sends its parts in order through
 * the port, records each part as it lands, and ends the row sent, retried later, or failed with a person
 * told (invariant 8). Turn slots never wait on it; what it has not sent yet is on disk for any process.
 */
export class OutboxWorker {
  readonly #options: OutboxWorkerOptions;
  readonly #queue: PQueue;
  readonly #now: () => number;
  /** Conversations being drained, and whether another kick arrived meanwhile. */
  readonly #draining = new Map<string, { again: boolean }>();
  readonly #wakeups = new Map<string, { readonly at: number; readonly timer: NodeJS.Timeout }>();
  /** Rows whose last attempt here ended without a recorded outcome: their claim must not be reused. */
  readonly #unsettled = new Set<number>();
  #stopped = false;

  constructor(options: OutboxWorkerOptions) {
    this.#options = options;
    this.#queue = new PQueue({ concurrency: options.concurrency ?? 16 });
    this.#now = options.now ?? Date.now;
  }

  get #lease(): Lease {
    return { owner: this.#options.identity.owner, durationMs: this.#options.claimMs };
  }

  /** Something was written for this conversation: deliver it now, in order. */
  kick(conversationId: string): void {
    if (this.#stopped) return;
    const active = this.#draining.get(conversationId);
    if (active) {
      active.again = true;
      return;
    }
    const state = { again: false };
    this.#draining.set(conversationId, state);
    void this.#queue
      .add(async () => {
        do {
          state.again = false;
          await this.#drain(conversationId);
        } while (state.again && !this.#stopped);
      })
      .catch((error: unknown) =>
        this.#options.logger.error({ err: error, conversationId }, 'outbox drain failed'),
      )
      .finally(() => this.#draining.delete(conversationId));
  }

  /**
   * The sweep: rows due and not held by a live claim, and rows whose claim belongs to a process that is
   * gone (it died mid-send on this host: its claim would otherwise hold them for a whole claim period) or
   * to this one after a send whose outcome could not be written.
   */
  async sweep(limit = 500): Promise<number> {
    const { store, identity } = this.#options;
    const due = await store.outbox.duePending(limit);
    const orphaned = (await store.outbox.heldPending(limit)).filter(
      (entry) =>
        entry.claim !== null &&
        (identity.ownerGone(entry.claim.owner) ||
          (entry.claim.owner === identity.owner && this.#unsettled.has(entry.id))),
    );
    const conversations = new Set([...due, ...orphaned].map((entry) => entry.conversationId));
    for (const conversationId of conversations) this.kick(conversationId);
    return due.length + orphaned.length;
  }

  async idle(): Promise<void> {
    while (this.#draining.size > 0 || this.#queue.size > 0 || this.#queue.pending > 0) {
      await this.#queue.onIdle();
    }
  }

  /**
   * Records a delivered row in a commit of its own, before the thread's next row goes. If the process dies
   * first, the row's claim lapses and the sweep reconciles it (finds the message): nothing is posted twice.
   * Slack has the message, so a fault that passes (a lock held too long, a full disk) is waited out and
   * the row recorded once it clears: the thread goes on then, not when the claim lapses.
   */
  async #record(entry: OutboxEntry, delivery: CompletedDelivery): Promise<void> {
    const { store, logger } = this.#options;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const [recorded] = await store.outbox.complete([delivery]);
        if (!recorded)
          logger.warn({ outboxId: entry.id, key: entry.key }, 'outbox claim lost before completion');
        return;
      } catch (error) {
        if (this.#stopped || !isStoreFault(error) || error instanceof StoreStoppedError) {
          // Not recorded: the row stays claimed until its claim lapses, then the sweep reconciles it.
          logger.error({ err: error, outboxId: entry.id }, 'could not record a delivered row');
          this.#unsettled.add(entry.id);
          return;
        }
        logger.warn({ err: error, outboxId: entry.id }, 'could not record delivered messages yet; retrying');
        await new Promise((resolve) => setTimeout(resolve, Math.min(25 * 2 ** attempt, 1_000)));
      }
    }
  }

  /** Stops taking rows; sends in flight finish (within `graceMs`) so nothing is left in doubt. */
  async stop(graceMs: number): Promise<void> {
    this.#stopped = true;
    for (const { timer } of this.#wakeups.values()) clearTimeout(timer);
    this.#wakeups.clear();
    this.#queue.clear();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#queue.onIdle(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
  }

  /**
   * Sends what is due in one conversation, lane by lane (see `laneOf`): rows of a lane go in order, one
   * at a time, and a row that must wait (Slack asked it to, or it failed and retries later) holds back only
   * the rows behind it in its own lane. A rewrite of a request's cards also waits for those cards to be
   * posted, so it reaches every one of them.
   */
  async #drain(conversationId: string): Promise<void> {
    const { store, identity } = this.#options;
    const held = new Set<OutboxLane>();
    /** Requests with a card or a DM copy not posted yet in this conversation. */
    const cardsUnposted = new Set<string>();
    let wake = Number.POSITIVE_INFINITY;
    for (let after = 0; ; ) {
      if (this.#stopped) return;
      const entry = await store.outbox.nextPending(conversationId, after);
      if (!entry) break;
      after = entry.id;
      const lane = laneOf(entry.message);
      const holdBack = () => {
        held.add(lane);
        for (const requestId of cardRequestsOf(entry.message)) cardsUnposted.add(requestId);
      };
      if (
        held.has(lane) ||
        (entry.message.type === 'card-update' && cardsUnposted.has(entry.message.requestId))
      ) {
        holdBack();
        continue;
      }
      const now = this.#now();
      if (entry.nextAttemptAt > now) {
        wake = Math.min(wake, entry.nextAttemptAt);
        holdBack();
        continue;
      }
      const step = claimStep(entry, now, identity);
      if (step.type === 'wait') {
        wake = Math.min(wake, step.at);
        holdBack();
        continue;
      }
      const claimed = await store.outbox.claim(entry.id, this.#lease, { takeOverFrom: step.takeOverFrom });
      if (claimed) {
        this.#unsettled.delete(claimed.id);
        // A row that did not reach an outcome has scheduled its own next attempt.
        if (await this.#deliver(claimed)) continue;
      }
      holdBack();
    }
    if (wake < Number.POSITIVE_INFINITY) this.#wakeAt(conversationId, wake);
  }

  /** True when the row reached an outcome and the conversation's next row may go. */
  async #deliver(entry: OutboxEntry): Promise<boolean> {
    const { store, port } = this.#options;
    const token: ClaimToken = { owner: this.#options.identity.owner, token: entry.claim?.token ?? 0 };
    let progress: DeliveryProgress = entry.progress;
    let unrecorded = false;
    try {
      const parts = progress.parts ?? [...(await port.plan(entry))];
      progress = { ...progress, parts };
      for (let index = progress.sent.length; index < parts.length; index += 1) {
        // Each part is recorded before the next is sent: a retry resumes at the first part not sent.
        if (unrecorded) {
          if (!(await store.outbox.recordProgress(entry.id, token, progress, this.#options.claimMs)))
            return false;
          unrecorded = false;
        }
        const sent: SentPart = await port.sendPart(entry, {
          index,
          content: parts[index] as string,
          // Only the part an earlier attempt may have been sending when it died is in doubt.
          inDoubt: entry.inDoubt && index === entry.progress.sent.length,
        });
        progress = { ...progress, sent: [...progress.sent, sent] };
        unrecorded = true;
      }
      await this.#record(entry, { id: entry.id, claim: token, progress });
      this.#options.onSent?.(entry);
      return true;
    } catch (error) {
      if (unrecorded) {
        // What was sent is recorded, so a retry does not repeat it; a failure here leaves the row in doubt.
        await store.outbox
          .recordProgress(entry.id, token, progress, this.#options.claimMs)
          .catch(() => false);
      }
      return this.#failed(entry, token, error);
    }
  }

  async #failed(entry: OutboxEntry, token: ClaimToken, error: unknown): Promise<boolean> {
    const { store, logger } = this.#options;
    const attempts = entry.attempts;
    try {
      const plan = retryPlan(error, attempts, this.#options);
      if (plan.type === 'give-up') {
        await this.#giveUp(entry, token, plan.reason);
        return true;
      }
      const nextAttemptAt = this.#now() + plan.waitMs;
      if (plan.waited)
        logger.info(
          { outboxId: entry.id, key: entry.key, retryInMs: plan.waitMs },
          'Slack asked to wait; delivering later',
        );
      else
        logger.warn(
          { err: error, outboxId: entry.id, key: entry.key, attempts, retryInMs: plan.waitMs },
          'delivery failed; retrying later',
        );
      const retry = { nextAttemptAt, error: reasonOf(error), inDoubt: plan.inDoubt, waited: plan.waited };
      if (await store.outbox.retryLater(entry.id, token, retry)) {
        this.#wakeAt(entry.conversationId, nextAttemptAt);
      }
      return false;
    } catch (storeError) {
      // The outcome could not be recorded: the row is taken again, in doubt, once the store takes writes
      // (the next kick, this wake-up or the sweep), and reconciled.
      logger.error({ err: storeError, outboxId: entry.id }, 'could not record a delivery outcome');
      this.#unsettled.add(entry.id);
      this.#wakeAt(
        entry.conversationId,
        this.#now() + (this.#options.backoffMs ?? defaultBackoffMs)(attempts),
      );
      return false;
    }
  }

  async #giveUp(entry: OutboxEntry, token: ClaimToken, reason: string): Promise<void> {
    const { store, logger } = this.#options;
    const notify = await undeliverableNotice(store, entry, reason);
    if (!(await store.outbox.giveUp(entry.id, token, { error: reason, notify }))) return;
    logger.error({ outboxId: entry.id, key: entry.key, reason }, 'delivery given up; the requester is told');
    if (notify.length > 0) this.kick(entry.conversationId);
    this.#options.onGiveUp?.(entry, reason);
  }

  /** Kicks the conversation at `at`, or earlier if a wake-up is already set for sooner. */
  #wakeAt(conversationId: string, at: number): void {
    if (this.#stopped) return;
    const set = this.#wakeups.get(conversationId);
    if (set && set.at <= at) return;
    clearTimeout(set?.timer);
    const timer = setTimeout(
      () => {
        this.#wakeups.delete(conversationId);
        this.kick(conversationId);
      },
      Math.max(0, at - this.#now()),
    );
    timer.unref();
    this.#wakeups.set(conversationId, { at, timer });
  }
}
