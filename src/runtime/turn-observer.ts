import type { TurnProgress } from '../agent/turn-progress.js';
import type { TurnOutcome } from '../agent/turn-runner.js';
import type { OutboxEntry } from '../store/outbox-message.js';
import type { Turn } from '../store/records.js';

/**
 * Decoration of a running turn for the people watching it (status reactions, "is working on it…").
 * Everything people must see exactly once (cards, answers, notices) goes through the outbox instead;
 * this is best effort and may be repeated after a crash.
 */
export interface TurnObserver {
  turnStarting(turn: Turn): Promise<void>;
  turnSettled(outcome: TurnOutcome): Promise<void>;
  /** What the turn is doing, as it happens (the answer's text, its tool calls). Must not block. */
  turnProgress?(turn: Turn, event: TurnProgress): void;
  /** Something meant for the thread will never reach it (the requester has been told directly). */
  deliveryFailed(entry: OutboxEntry): Promise<void>;
  /** Something meant for the thread has reached it (a card now shows). Must not block. */
  delivered?(entry: OutboxEntry): void;
  /** Resolves when updates started so far are done (for an orderly stop, and for tests). */
  idle?(): Promise<void>;
}

export const silentObserver: TurnObserver = {
  async turnStarting() {},
  async turnSettled() {},
  async deliveryFailed() {},
};
