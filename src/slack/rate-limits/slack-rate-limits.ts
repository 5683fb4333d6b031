import { SlackApiError } from '../web-api/slack-errors.js';
import { SlackCallBudget } from './call-budget.js';
import type { MethodLimit } from './published-limits.js';

/**
 * What a call is worth when its method runs short. `essential`: a card, a rewrite, an answer, a notice,
 * the final status; it waits out a limit (as long as its caller's patience) and is never dropped here.
 * `optional`: a preview, a progress update, an intermediate status or reaction; it goes only while its
 * method has budget to spare, and is dropped at once (never retried) otherwise: its caller sends the latest
 * state later, or nothing.
 */
export type CallPriority = 'essential' | 'optional';

/**
 * Slack limits each Web API method on its own. The Web API client, told of a 429, pauses every call it
 * makes until Retry-After has passed, so a limited `reactions.add` (a status reaction) would hold back a
 * Deny click's `views.open` past its trigger's three seconds, and every reply to a click with it. So the
 * process's clients reject a limited call at once, and this keeps the pause for that method alone,
 * shared by every port: a limit one port ran into is waited out by the others too.
 */
export class SlackRateLimits {
  readonly #pausedUntil = new Map<string, number>();
  /** Methods limited since their last answer from Slack: the next call after the pause goes alone. */
  readonly #unproven = new Set<string>();
  /** The call now testing a method whose pause has just ended; the others follow once it is answered. */
  readonly #firstAfterPause = new Map<string, Promise<void>>();
  readonly #now: () => number;
  /** What is left of each method's limit: decides whether an optional call may go. */
  readonly budget: SlackCallBudget;

  /** Retry-After counts real seconds: a monotonic clock, not the app's (tests move that one by hand). */
  constructor(
    now: () => number = () => performance.now(),
    /** The limits calls are planned by: Slack's published ones unless told (tests run them faster). */
    limits?: Readonly<Record<string, MethodLimit>>,
  ) {
    this.#now = now;
    this.budget = new SlackCallBudget(now, limits);
  }

  /** How long `method` must still wait, in milliseconds; 0 when it may be called now. */
  remaining(method: string): number {
    const until = this.#pausedUntil.get(method);
    if (until === undefined) return 0;
    const left = until - this.#now();
    if (left > 0) return left;
    this.#pausedUntil.delete(method);
    return 0;
  }

  /** Slack answered a call to `method` with a 429 and asked for `retryAfterMs`. */
  limited(method: string, retryAfterMs: number, channel?: string): void {
    this.budget.exhausted(method, retryAfterMs, channel);
    this.#unproven.add(method);
    const until = this.#now() + retryAfterMs;
    if (until > (this.#pausedUntil.get(method) ?? 0)) this.#pausedUntil.set(method, until);
  }

  /**
   * Runs `call` once its method may go, waiting out a pause (Slack's, or one another call ran into) for
   * `patienceMs` in all, sending it `attempts` times at most; otherwise fails as Slack would have, without
   * calling it. When a pause ends, one waiting call goes first and the others once Slack has answered it,
   * so a queue of them does not meet the limit again all at once. With no patience a call never waits,
   * not even for that first one. `toError` reads a failure: one with `retryAfterMs` was a 429.
   */
  async run<Result>(
    method: string,
    call: () => Promise<Result>,
    options: {
      readonly patienceMs: number;
      readonly attempts: number;
      readonly toError: (error: unknown) => SlackApiError;
      /** Told before each call sent again after a 429 (metrics). */
      readonly onRetry?: () => void;
      /** `essential` unless told (see `CallPriority`). */
      readonly priority?: CallPriority;
      /** The channel a per-channel limit (`chat.postMessage`) counts the call in. */
      readonly channel?: string;
      /**
       * Methods an optional call commits to calling later (opening a stream commits to stopping it): it
       * goes only if they have budget to spare too.
       */
      readonly alsoSpare?: readonly string[];
    },
  ): Promise<Result> {
    if (options.priority === 'optional') return this.#runOptional(method, call, options);
    const patient = options.patienceMs > 0;
    const deadline = this.#now() + options.patienceMs;
    for (let sent = 0; ; ) {
      // Slack's own pause first, then the pace of the method's published limit.
      const wait = Math.max(this.remaining(method), this.budget.availableIn(method, options.channel));
      if (wait > 0) {
        if (!patient || this.#now() + wait > deadline) throw rateLimited(method, wait);
        await sleep(wait);
        continue;
      }
      const first = this.#firstAfterPause.get(method);
      const patienceLeft = deadline - this.#now();
      // A first call that hangs holds the others no longer than their patience; then they go anyway.
      if (first && patient && patienceLeft > 0) {
        await Promise.race([first, sleep(patienceLeft)]);
        continue;
      }
      const goesFirst = patient && first === undefined && this.#unproven.has(method);
      let answered = () => {};
      if (goesFirst) {
        this.#firstAfterPause.set(
          method,
          new Promise<void>((resolve) => {
            answered = resolve;
          }),
        );
      }
      sent += 1;
      try {
        return await this.#send(method, call, options);
      } catch (error) {
        const failure = error as SlackApiError;
        if (failure.retryAfterMs === undefined) throw failure;
        // Patience 0 never sends again here, however short the wait: its caller keeps its own schedule.
        const waits = patient && this.#now() + failure.retryAfterMs <= deadline;
        if (!waits || sent >= options.attempts) throw failure;
        options.onRetry?.();
      } finally {
        if (goesFirst) {
          this.#firstAfterPause.delete(method);
          answered();
        }
      }
    }
  }

  /** One try, only with budget to spare; dropped otherwise (see `CallPriority`). */
  async #runOptional<Result>(
    method: string,
    call: () => Promise<Result>,
    options: {
      readonly toError: (error: unknown) => SlackApiError;
      readonly channel?: string;
      readonly alsoSpare?: readonly string[];
    },
  ): Promise<Result> {
    const wait = Math.max(
      this.remaining(method),
      this.budget.spareIn(method, options.channel),
      ...(options.alsoSpare ?? []).map((other) =>
        Math.max(this.remaining(other), this.budget.spareIn(other)),
      ),
    );
    if (wait > 0) throw rateLimited(method, wait);
    return this.#send(method, call, options);
  }

  /** Sends one call, spending its budget; a failure comes back as Slack's, and a 429 pauses the method. */
  async #send<Result>(
    method: string,
    call: () => Promise<Result>,
    options: { readonly toError: (error: unknown) => SlackApiError; readonly channel?: string },
  ): Promise<Result> {
    this.budget.spend(method, options.channel);
    try {
      const result = await call();
      this.#unproven.delete(method);
      return result;
    } catch (error) {
      const failure = options.toError(error);
      if (failure.retryAfterMs === undefined) this.#unproven.delete(method);
      else this.limited(method, failure.retryAfterMs, options.channel);
      throw failure;
    }
  }
}

function rateLimited(method: string, retryAfterMs: number): SlackApiError {
  return new SlackApiError(method, 'ratelimited', { retryAfterMs, refused: true });
}

/** Waiting out a limit never keeps a stopping process alive. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
