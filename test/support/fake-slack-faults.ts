/** Failures and held answers a test scripts into the fake Slack API ahead of the calls they are for. */
import type { FakeSlackApi } from './fake-slack-api.js';
import type { SlackApiCall } from './fake-slack-call-log.js';

export type ScriptedFailure =
  /** HTTP 200 with `{ ok: false, error }`, the way Slack reports `not_in_channel`, `invalid_blocks`, ... */
  | { readonly type: 'error'; readonly error: string }
  | { readonly type: 'rate-limited'; readonly retryAfterSeconds: number }
  | { readonly type: 'http'; readonly status: number };

export interface HeldCall {
  /** Resolves with the call once it has arrived (and been done). */
  readonly arrived: Promise<SlackApiCall>;
  /** Sends the held response, if anyone is still there to read it. */
  release(): void;
  /** Closes the connection instead: Slack did the work and its answer is lost on the way back. */
  drop(): void;
}

export interface FaultScript extends Pick<FakeSlackApi, 'failNext' | 'failMatching' | 'holdNext'> {
  /** A failure scripted for this very call (by its parameters) first, then the method's queue. */
  failureFor(method: string, params: Record<string, unknown>): ScriptedFailure | undefined;
  /** Takes the hold this call matches, if any, and tells it the call arrived: resolves as it is let go. */
  takeHold(call: SlackApiCall): Promise<'answer' | 'drop'> | undefined;
  /** Lets every held answer go. */
  releaseAll(): void;
}

export function createFaultScript(): FaultScript {
  const failures = new Map<string, ScriptedFailure[]>();
  const targetedFailures: Array<{
    method: string;
    matches: (params: Record<string, unknown>) => boolean;
    failure: ScriptedFailure;
    left: number;
  }> = [];
  const holds: Array<{
    method: string;
    matches: (call: SlackApiCall) => boolean;
    arrived: (call: SlackApiCall) => void;
    released: Promise<'answer' | 'drop'>;
  }> = [];
  const releases = new Set<() => void>();

  return {
    failNext(method, failure, times = 1) {
      const queue = failures.get(method) ?? [];
      for (let i = 0; i < times; i += 1) queue.push(failure);
      failures.set(method, queue);
    },
    failMatching(method, matches, failure, times = 1) {
      targetedFailures.push({ method, matches, failure, left: times });
    },
    holdNext(method, matches = () => true) {
      let settle: (how: 'answer' | 'drop') => void = () => {};
      const released = new Promise<'answer' | 'drop'>((resolve) => {
        settle = resolve;
      });
      const release = () => settle('answer');
      releases.add(release);
      let arrived: (call: SlackApiCall) => void = () => {};
      const arrival = new Promise<SlackApiCall>((resolve) => {
        arrived = resolve;
      });
      holds.push({ method, matches, arrived, released });
      return { arrived: arrival, release, drop: () => settle('drop') };
    },
    failureFor(method, params) {
      const targeted = targetedFailures.find(
        (candidate) => candidate.method === method && candidate.left > 0 && candidate.matches(params),
      );
      if (targeted) {
        targeted.left -= 1;
        return targeted.failure;
      }
      return failures.get(method)?.shift();
    },
    takeHold(call) {
      const hold = holds.findIndex(
        (candidate) => candidate.method === call.method && candidate.matches(call),
      );
      if (hold < 0) return undefined;
      const [held] = holds.splice(hold, 1);
      held?.arrived(call);
      return held?.released;
    },
    releaseAll() {
      for (const release of releases) release();
    },
  };
}
