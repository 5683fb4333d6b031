import { describe, expect, it } from 'vitest';
import { SlackApiError } from '../web-api/slack-errors.js';
import { SlackRateLimits } from './slack-rate-limits.js';

/** Slack's pauses alone, with no published limit to pace calls by (the pacing has tests of its own). */
const unpaced = {};

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
    const limits = new SlackRateLimits(() => now, unpaced);
    limits.limited('reactions.add', 30_000);

    expect(limits.remaining('reactions.add')).toBe(30_000);
    expect(limits.remaining('views.open')).toBe(0);
    now += 29_000;
    expect(limits.remaining('reactions.add')).toBe(1_000);
    now += 1_000;
    expect(limits.remaining('reactions.add')).toBe(0);
  });

  it('keeps the later of two pauses', () => {
    const limits = new SlackRateLimits(() => 0, unpaced);
    limits.limited('chat.update', 5_000);
    limits.limited('chat.update', 1_000);
    expect(limits.remaining('chat.update')).toBe(5_000);
  });

  it('fails a call to a paused method at once, without sending it, when the pause outlasts its patience', async () => {
    const limits = new SlackRateLimits(() => 0, unpaced);
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
    const limits = new SlackRateLimits(undefined, unpaced);
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
    const limits = new SlackRateLimits(undefined, unpaced);
    const slack = scripted([limited('chat.postMessage', 0), 'ok']);

    const failure = await limits
      .run('chat.postMessage', slack.call, { patienceMs: 0, attempts: 4, toError })
      .catch((error: unknown) => error);

    expect(failure).toMatchObject({ slackError: 'ratelimited', retryAfterMs: 0 });
    expect(slack.calls).toEqual([1]);
  });

  it('gives up after its attempts, failing with the last 429', async () => {
    const limits = new SlackRateLimits(undefined, unpaced);
    const slack = scripted([limited('reactions.add', 5), limited('reactions.add', 5), 'ok']);

    const failure = await limits
      .run('reactions.add', slack.call, { patienceMs: 1_000, attempts: 2, toError })
      .catch((error: unknown) => error);

    expect(failure).toMatchObject({ slackError: 'ratelimited', retryAfterMs: 5 });
    expect(slack.calls).toEqual([1, 2]);
  });

  it('passes any other failure through untouched, without retrying', async () => {
    const limits = new SlackRateLimits(undefined, unpaced);
    const refusal = new SlackApiError('chat.postEphemeral', 'not_in_channel', { refused: true });
    const slack = scripted([refusal]);

    await expect(
      limits.run('chat.postEphemeral', slack.call, { patienceMs: 1_000, attempts: 4, toError }),
    ).rejects.toBe(refusal);
    expect(slack.calls).toEqual([1]);
    expect(limits.remaining('chat.postEphemeral')).toBe(0);
  });

  it('lets one waiting call go first when a pause ends, and the rest once Slack has taken it', async () => {
    const limits = new SlackRateLimits(undefined, unpaced);
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
    const limits = new SlackRateLimits(undefined, unpaced);
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
    const limits = new SlackRateLimits(undefined, unpaced);
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
    const limits = new SlackRateLimits(() => now, unpaced);
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
    const limits = new SlackRateLimits(undefined, unpaced);
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

  describe('pacing by the published limits', () => {
    const tier3 = { 'chat.update': { tier: 3 as const, perMinute: 60, burst: 2 } };

    it('sends a burst at once, then one call per refill, without a 429', async () => {
      let now = 0;
      const limits = new SlackRateLimits(() => now, tier3);
      const slack = scripted([]);
      const run = () => limits.run('chat.update', slack.call, { patienceMs: 5_000, attempts: 4, toError });

      await run();
      await run();
      expect(slack.calls).toHaveLength(2);
      const third = run();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(slack.calls).toHaveLength(2);
      now += 1_000;
      await third;
      expect(slack.calls).toHaveLength(3);
    });

    it('fails a call with no patience at once when its method has no call left, saying how long to wait', async () => {
      const limits = new SlackRateLimits(() => 0, tier3);
      const slack = scripted([]);
      const run = () => limits.run('chat.update', slack.call, { patienceMs: 0, attempts: 4, toError });
      await run();
      await run();

      await expect(run()).rejects.toMatchObject({
        slackError: 'ratelimited',
        retryAfterMs: 1_000,
        refused: true,
      });
      expect(slack.calls).toHaveLength(2);
    });

    it('lets an optional call go only while half a burst stays in reserve, and never waits for it', async () => {
      const limits = new SlackRateLimits(() => 0, {
        'reactions.add': { tier: 3, perMinute: 60, burst: 4 },
        'reactions.remove': { tier: 2, perMinute: 20, burst: 2 },
      });
      const slack = scripted([]);
      const optional = () =>
        limits.run('reactions.add', slack.call, {
          patienceMs: 60_000,
          attempts: 4,
          toError,
          priority: 'optional',
        });

      await optional();
      await optional();
      // Two of four left: what remains is kept for calls that must arrive.
      await expect(optional()).rejects.toMatchObject({ slackError: 'ratelimited', refused: true });
      expect(slack.calls).toHaveLength(2);
      await limits.run('reactions.add', slack.call, { patienceMs: 0, attempts: 1, toError });
      expect(slack.calls).toHaveLength(3);
    });

    it('opens what it must close only if closing is affordable too', async () => {
      const limits = new SlackRateLimits(() => 0, {
        'chat.startStream': { tier: 2, perMinute: 20, burst: 2 },
        'chat.stopStream': { tier: 2, perMinute: 20, burst: 2 },
      });
      const slack = scripted([]);
      await limits.run('chat.stopStream', slack.call, { patienceMs: 0, attempts: 1, toError });

      await expect(
        limits.run('chat.startStream', slack.call, {
          patienceMs: 0,
          attempts: 1,
          toError,
          priority: 'optional',
          alsoSpare: ['chat.stopStream'],
        }),
      ).rejects.toMatchObject({ slackError: 'ratelimited' });
      expect(slack.calls).toHaveLength(1);
    });

    it('trusts Slack over its estimate: after a 429 the method has a call again when Retry-After ends', async () => {
      let now = 0;
      const limits = new SlackRateLimits(() => now, tier3);
      limits.limited('chat.update', 5_000);
      expect(limits.budget.availableIn('chat.update')).toBe(5_000);
      now += 5_000;
      expect(limits.budget.availableIn('chat.update')).toBe(0);
    });
  });
});
