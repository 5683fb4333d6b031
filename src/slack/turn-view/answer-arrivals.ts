/**
 * A completed turn's tick waits for its answer to reach the thread. The answer goes through the outbox
 * (a claim, then the post) while the tick is sent directly, so without this wait a person could see
 * "done" on a request with no answer under it yet. Bounded: an answer another process posts is never
 * reported here, so after `waitMs` the tick goes up all the same.
 */
export class AnswerArrivals {
  readonly #waitMs: number;
  /** Answers that reached the thread before their turn's ending was known. */
  readonly #arrived = new Set<string>();
  readonly #waiting = new Map<string, { readonly show: () => void; readonly timer: NodeJS.Timeout }>();

  constructor(waitMs: number) {
    this.#waitMs = waitMs;
  }

  /** The turn's answer reached the thread. `known`: its turn is followed here, so its tick will ask. */
  arrived(turnId: string, known: boolean): void {
    if (this.#release(turnId, true)) return;
    if (known) this.#arrived.add(turnId);
  }

  /** The turn's answer will not reach the thread (Slack refused it): its tick is never shown. */
  failed(turnId: string): void {
    this.#release(turnId, false);
    this.#arrived.delete(turnId);
  }

  /** Runs `show` once the turn's answer has reached the thread, at once if it has already. */
  afterAnswer(turnId: string, show: () => void): void {
    if (this.#arrived.delete(turnId)) {
      show();
      return;
    }
    const timer = setTimeout(() => this.#release(turnId, true), this.#waitMs);
    timer.unref();
    this.#waiting.set(turnId, { show, timer });
  }

  /** Forgets an arrival no tick asked for (the turn's ending was not shown here). */
  forget(turnId: string): void {
    this.#arrived.delete(turnId);
  }

  #release(turnId: string, show: boolean): boolean {
    const waiting = this.#waiting.get(turnId);
    if (!waiting) return false;
    clearTimeout(waiting.timer);
    this.#waiting.delete(turnId);
    if (show) waiting.show();
    return true;
  }
}
