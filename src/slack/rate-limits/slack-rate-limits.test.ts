import { describe, expect, it } from 'vitest';
import { SlackApiError } from '../slack-errors.js';
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

  it('lets one waiting call go first when a pause ends, and the rest once Slack has taken it', async () => {
    const limits = new SlackRateLimits();
    limits.limited('reactions.add', 20);
    const events: string[] = [];
    const send = (name: string) => async () => {
      events.push(`${name} sent`);
      await new Promise((resolve) => setTimeout(resolve, 30));
      events.push(`${name} answered`);
      return name;
    };
    const options = { patienceMs: 1_000, attempts: 4, toError };

    const results = await Promise.all(
      ['a', 'b', 'c'].map((name) => limits.run('reactions.add', send(name), options)),
    );

    expect(results).toEqual(['a', 'b', 'c']);
    const [firstSent, firstAnswered, ...rest] = events;
    expect(firstSent).toMatch(/ sent$/);
    expect(firstAnswered).toBe(firstSent?.replace('sent', 'answered'));
    expect(rest.filter((event) => event.endsWith(' sent'))).toHaveLength(2);
  });

  it('keeps the others waiting when the first call after a pause is limited again', async () => {
    const limits = new SlackRateLimits();
    limits.limited('chat.update', 10);
    // Slack's side: the first call it sees starts a limit of 30 ms, and every call inside it is refused.
    let limitedUntil: number | undefined;
    let refused = 0;
    const send = (name: string) => async () => {
      const now = performance.now();
      limitedUntil ??= now + 30;
      if (now < limitedUntil) {
        refused += 1;
        throw limited('chat.update', Math.ceil(limitedUntil - now));
      }
      return name;
    };
    const options = { patienceMs: 1_000, attempts: 4, toError };

    const results = await Promise.all(
      ['a', 'b', 'c'].map((name) => limits.run('chat.update', send(name), options)),
    );

    expect(results).toEqual(['a', 'b', 'c']);
    // Only the call that went first met the new limit; nobody else was sent into it.
    expect(refused).toBe(1);
  });

  it('sends a call with no patience at once, beside a first call still being answered', async () => {
    const limits = new SlackRateLimits();
    limits.limited('chat.postMessage', 10);
    let release = () => {};
    const slow = () =>
      new Promise<string>((resolve) => {
        release = () => resolve('slow');
      });
    const first = limits.run('chat.postMessage', slow, { patienceMs: 1_000, attempts: 4, toError });
    await new Promise((resolve) => setTimeout(resolve, 40));

    const eager = await limits.run('chat.postMessage', async () => 'eager', {
      patienceMs: 0,
      attempts: 1,
      toError,
    });
    release();

    expect(eager).toBe('eager');
    expect(await first).toBe('slow');
  });

  it('counts patience over all its waits, not each', async () => {
    let now = 0;
    const limits = new SlackRateLimits(() => now);
    const slack = scripted([limited('views.publish', 600), limited('views.publish', 600), 'ok']);
    const run = limits.run('views.publish', slack.call, { patienceMs: 1_000, attempts: 4, toError });
    // The injected clock does not move while the call sleeps its 600 ms; move it as that sleep ends.
    setTimeout(() => {
      now += 600;
    }, 590);

    await expect(run).rejects.toMatchObject({ slackError: 'ratelimited', retryAfterMs: 600 });
    expect(slack.calls).toEqual([1, 2]);
  });

  it('stops waiting for a first call that hangs once its own patience is spent, and goes', async () => {
    const limits = new SlackRateLimits();
    limits.limited('reactions.remove', 5);
    const hanging = limits.run('reactions.remove', () => new Promise<string>(() => {}), {
      patienceMs: 1_000,
      attempts: 4,
      toError,
    });
    void hanging;
    await new Promise((resolve) => setTimeout(resolve, 20));

    const next = await limits.run('reactions.remove', async () => 'sent', {
      patienceMs: 50,
      attempts: 4,
      toError,
    });

    expect(next).toBe('sent');
  });
});
