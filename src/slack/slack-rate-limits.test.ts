import { describe, expect, it } from 'vitest';
import { SlackApiError } from './slack-errors.js';
import { SlackRateLimits } from './slack-rate-limits.js';

const toError = (error: unknown) =>
  error instanceof SlackApiError ? error : new SlackApiError('test', String(error));
const limited = (method: string, retryAfterMs: number) =>
  new SlackApiError(method, 'ratelimited', { retryAfterMs, refused: true });

function scripted(outcomes: Array<'ok' | SlackApiError>) {
  const calls: number[] = [];
  return {
    calls,
    call: async () => {
      calls.push(calls.length + 1);
      const outcome = outcomes.shift() ?? 'ok';
      if (outcome !== 'ok') throw outcome;
      return 'sent';
    },
  };
}

describe('SlackRateLimits', () => {
  it('pauses a method for as long as Slack asked, and no other method', () => {
    let now = 1_000;
    const limits = new SlackRateLimits(() => now);
    limits.limited('reactions.add', 30_000);

    expect(limits.remaining('reactions.add')).toBe(30_000);
    expect(limits.remaining('views.open')).toBe(0);
    now += 29_000;
    expect(limits.remaining('reactions.add')).toBe(1_000);
    now += 1_000;
    expect(limits.remaining('reactions.add')).toBe(0);
  });

  it('keeps the later of two pauses', () => {
    const limits = new SlackRateLimits(() => 0);
    limits.limited('chat.update', 5_000);
    limits.limited('chat.update', 1_000);
    expect(limits.remaining('chat.update')).toBe(5_000);
  });

  it('fails a call to a paused method at once, without sending it, when the pause outlasts its patience', async () => {
    const limits = new SlackRateLimits(() => 0);
    limits.limited('views.open', 2_000);
    const slack = scripted(['ok']);

    const failure = await limits
      .run('views.open', slack.call, { patienceMs: 0, attempts: 4, toError })
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(SlackApiError);
    expect(failure).toMatchObject({ slackError: 'ratelimited', retryAfterMs: 2_000, refused: true });
    expect(slack.calls).toEqual([]);
  });

  it('waits out a 429 within its patience and sends the call again', async () => {
    const limits = new SlackRateLimits();
    const slack = scripted([limited('reactions.add', 20), 'ok']);
    let retries = 0;

    const result = await limits.run('reactions.add', slack.call, {
      patienceMs: 1_000,
      attempts: 4,
      toError,
      onRetry: () => {
        retries += 1;
      },
    });

    expect(result).toBe('sent');
    expect(slack.calls).toEqual([1, 2]);
    expect(retries).toBe(1);
  });

  it('never sends again with no patience, even when Slack asks for no wait at all', async () => {
    const limits = new SlackRateLimits();
    const slack = scripted([limited('chat.postMessage', 0), 'ok']);

    const failure = await limits
      .run('chat.postMessage', slack.call, { patienceMs: 0, attempts: 4, toError })
      .catch((error: unknown) => error);

    expect(failure).toMatchObject({ slackError: 'ratelimited', retryAfterMs: 0 });
    expect(slack.calls).toEqual([1]);
  });

  it('gives up after its attempts, failing with the last 429', async () => {
    const limits = new SlackRateLimits();
    const slack = scripted([limited('reactions.add', 5), limited('reactions.add', 5), 'ok']);

    const failure = await limits
      .run('reactions.add', slack.call, { patienceMs: 1_000, attempts: 2, toError })
      .catch((error: unknown) => error);

    expect(failure).toMatchObject({ slackError: 'ratelimited', retryAfterMs: 5 });
    expect(slack.calls).toEqual([1, 2]);
  });

  it('passes any other failure through untouched, without retrying', async () => {
    const limits = new SlackRateLimits();
    const refusal = new SlackApiError('chat.postEphemeral', 'not_in_channel', { refused: true });
    const slack = scripted([refusal]);

    await expect(
      limits.run('chat.postEphemeral', slack.call, { patienceMs: 1_000, attempts: 4, toError }),
    ).rejects.toBe(refusal);
    expect(slack.calls).toEqual([1]);
    expect(limits.remaining('chat.postEphemeral')).toBe(0);
  });
});
