/**
 * What the fake Slack API was sent, in arrival order, and waiting for a call or a `response_url` post that
 * may be still to come.
 */
import type { FakeSlackApi } from './fake-slack-api.js';

export interface SlackApiCall {
  readonly method: string;
  /** Form fields as sent; the JSON-valued ones (`blocks`, `view`, ...) parsed. */
  readonly params: Record<string, unknown>;
  readonly token: string | undefined;
  readonly status: number;
  readonly response: Record<string, unknown>;
}

export interface ResponseUrlPost {
  readonly name: string;
  readonly body: Record<string, unknown>;
}

export interface CallLog extends Pick<FakeSlackApi, 'calls' | 'responses' | 'waitFor' | 'waitForResponse'> {
  record(call: SlackApiCall): void;
  recordResponse(post: ResponseUrlPost): void;
  /** Pending waits stop listening for new calls; each still fails at its own timeout. */
  stopWaiting(): void;
}

export function createCallLog(): CallLog {
  const calls: SlackApiCall[] = [];
  const responses: ResponseUrlPost[] = [];
  const listeners = new Set<() => void>();

  const notify = () => {
    for (const listener of [...listeners]) listener();
  };

  const waitUntil = <T>(find: () => T | undefined, what: string, timeoutMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const found = find();
      if (found !== undefined) {
        resolve(found);
        return;
      }
      const check = () => {
        const match = find();
        if (match === undefined) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(match);
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`the fake Slack API never saw ${what} (within ${timeoutMs} ms)`));
      }, timeoutMs);
      listeners.add(check);
    });

  return {
    calls,
    responses,
    record(call) {
      calls.push(call);
      notify();
    },
    recordResponse(post) {
      responses.push(post);
      notify();
    },
    waitFor: (method, matches = () => true, timeoutMs = 10_000) =>
      waitUntil(
        () => calls.find((call) => call.method === method && matches(call)),
        `a matching ${method} call`,
        timeoutMs,
      ),
    waitForResponse: (matches = () => true, timeoutMs = 10_000) =>
      waitUntil(() => responses.find(matches), 'a matching response_url post', timeoutMs),
    stopWaiting: () => listeners.clear(),
  };
}
