import { describe, expect, it } from 'vitest';
import { HoldfastError } from '../../../src/errors.js';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { channel, eventually, people, readRows, startSlackHarness } from './slack-harness.js';

class ModelRateLimited extends HoldfastError {
  readonly code = 'model_rate_limited';
}

function sectionTexts(blocks: unknown): string[] {
  return (blocks as Array<{ type: string; text?: { text: string } }>)
    .filter((block) => block.type === 'section')
    .map((block) => block.text?.text ?? '');
}

describe('posting to the thread', () => {
  it('splits a long answer into several messages, each within Block Kit limits, in order', async () => {
    const paragraphs = Array.from(
      { length: 60 },
      (_, i) =>
        `Paragraph ${i + 1}: ${'the web tier reports healthy latency and no errors. '.repeat(6).trim()}`,
    );
    const answer = paragraphs.join('\n\n');
    const slack = await startSlackHarness({ model: new ScriptedChatModel([reply.text(answer)]) });

    const threadTs = await slack.mention('write me the long report');
    await slack.api.waitFor('reactions.add', (call) => call.params.name === 'white_check_mark');
    await slack.settle();

    const posts = slack.api
      .succeeded('chat.postMessage')
      .filter((call) => call.params.thread_ts === threadTs);
    expect(posts.length).toBeGreaterThan(1);
    for (const post of posts) {
      const blocks = post.params.blocks as unknown[];
      expect(String(post.params.text).length).toBeLessThanOrEqual(4000);
      expect(blocks.length).toBeLessThanOrEqual(50);
      const texts = sectionTexts(blocks);
      for (const text of texts) expect(text.length).toBeLessThanOrEqual(3000);
      expect(texts.join('').length).toBeLessThanOrEqual(10_000);
    }
    const delivered = posts.flatMap((post) => sectionTexts(post.params.blocks)).join('\n\n');
    expect(delivered).toBe(answer);
  });

  it('cuts a five-megabyte answer to a few messages and says it was cut', async () => {
    const huge = 'all work and no play makes jack a dull boy. '.repeat(120_000);
    const slack = await startSlackHarness({ model: new ScriptedChatModel([reply.text(huge)]) });

    const threadTs = await slack.mention('tell me everything');
    await slack.api.waitFor('chat.postMessage', (call) =>
      String(call.params.text).includes('the answer was cut here'),
    );
    await slack.settle();

    const posts = slack.api.thread(channel, threadTs);
    expect(posts.length).toBeLessThanOrEqual(8);
    expect(posts.at(-1)?.text).toContain(
      `_… the answer was cut here: it ran to ${huge.length.toLocaleString('en-US')} characters. Ask for the part you need._`,
    );
  });

  it('resumes a long answer at the chunk that failed: every chunk once, in order', async () => {
    const paragraphs = Array.from(
      { length: 60 },
      (_, i) =>
        `Paragraph ${i + 1}: ${'the web tier reports healthy latency and no errors. '.repeat(6).trim()}`,
    );
    const answer = paragraphs.join('\n\n');
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([reply.text(answer)]),
      delivery: { backoffMs: () => 10 },
    });
    // The chunk holding paragraph 30 (one in the middle) fails three times, then goes through. Slack's
    // own transient error: the client does not retry it, holdfast does.
    const middle = (blocks: unknown) => sectionTexts(blocks).join('\n\n').includes('Paragraph 30:');
    slack.api.failMatching(
      'chat.postMessage',
      (params) => middle(params.blocks),
      { type: 'error', error: 'internal_error' },
      3,
    );

    const threadTs = await slack.mention('write me the long report');
    const delivered = () =>
      slack.api
        .thread(channel, threadTs)
        .flatMap((message) => sectionTexts(message.blocks))
        .join('\n\n');
    await eventually(() => delivered().length >= answer.length, 'the whole answer in the thread');
    await slack.settle();

    const attempts = slack.api
      .callsTo('chat.postMessage')
      .filter((call) => call.params.thread_ts === threadTs)
      .map((call) => ({
        ok: call.response.ok === true,
        first: /Paragraph (\d+):/.exec(sectionTexts(call.params.blocks)[0] ?? '')?.[1],
      }));
    const posted = attempts.filter((attempt) => attempt.ok).map((attempt) => attempt.first);
    const failed = attempts.filter((attempt) => !attempt.ok).map((attempt) => attempt.first);
    expect(posted.length).toBeGreaterThan(2);
    expect(failed).toHaveLength(3);
    expect(new Set(failed).size).toBe(1);
    // The failing chunk is a middle one, and every chunk went out once, in order.
    expect(failed[0]).not.toBe(posted[0]);
    expect(failed[0]).not.toBe(posted.at(-1));
    expect(posted.map(Number)).toEqual([...posted.map(Number)].sort((a, b) => a - b));
    expect(new Set(posted).size).toBe(posted.length);
    expect(delivered()).toBe(answer);
  });

  it('waits out a 429 and posts the answer exactly once', async () => {
    const slack = await startSlackHarness({ model: new ScriptedChatModel([reply.text('All quiet.')]) });
    slack.api.failNext('chat.postMessage', { type: 'rate-limited', retryAfterSeconds: 0 });

    const threadTs = await slack.mention('anything on fire?');
    await slack.api.waitFor('chat.postMessage', (call) => call.response.ok === true);
    await slack.settle();

    const attempts = slack.api.callsTo('chat.postMessage').map((call) => [call.status, call.params.text]);
    expect(attempts).toEqual([
      [429, 'All quiet.'],
      [200, 'All quiet.'],
    ]);
    expect(slack.api.thread(channel, threadTs).map((message) => message.text)).toEqual(['All quiet.']);
    expect(readRows(slack.databasePath, 'SELECT status FROM turns')).toEqual([{ status: 'completed' }]);
    expect(
      readRows(slack.databasePath, "SELECT status, attempts FROM outbox WHERE key LIKE 'answer:%'"),
      // Slack only asked it to wait: that is no failed attempt, and counts for nothing towards giving up.
    ).toEqual([{ status: 'sent', attempts: 1 }]);
  });

  it('retries a 5xx and posts the answer exactly once', async () => {
    const slack = await startSlackHarness({ model: new ScriptedChatModel([reply.text('All quiet.')]) });
    slack.api.failNext('chat.postMessage', { type: 'http', status: 503 });

    const threadTs = await slack.mention('anything on fire?');
    await slack.api.waitFor('chat.postMessage', (call) => call.response.ok === true);
    await slack.settle();

    expect(slack.api.callsTo('chat.postMessage').map((call) => call.status)).toEqual([503, 200]);
    expect(slack.api.thread(channel, threadTs).map((message) => message.text)).toEqual(['All quiet.']);
  });

  it('gives up on a thread it is not in, tells the requester directly, and never posts twice', async () => {
    const slack = await startSlackHarness({ model: new ScriptedChatModel([reply.text('All quiet.')]) });
    slack.api.failNext('chat.postMessage', { type: 'error', error: 'not_in_channel' });

    const threadTs = await slack.mention('anything on fire?');
    const direct = await slack.api.waitFor(
      'chat.postMessage',
      (call) => call.params.channel === people.alice,
    );
    await slack.settle();

    expect(String(direct.params.text)).toContain('holdfast is not a member of that channel');
    expect(String(direct.params.text)).toContain(`<#${channel}>`);
    const inThread = slack.api.callsTo('chat.postMessage').filter((call) => call.params.channel === channel);
    expect(inThread).toHaveLength(1);
    expect(slack.api.thread(channel, threadTs)).toEqual([]);
    await eventually(
      () => slack.api.succeeded('reactions.add').some((call) => call.params.name === 'x'),
      'the request message to be marked failed',
    );
    expect(
      readRows(slack.databasePath, "SELECT status, last_error FROM outbox WHERE key LIKE 'answer:%'"),
    ).toEqual([{ status: 'failed', last_error: 'not_in_channel' }]);
    expect(
      readRows(slack.databasePath, "SELECT data_json FROM audit_events WHERE kind = 'delivery.failed'"),
    ).toHaveLength(1);

    // A restart's recovery does not try the thread again.
    await slack.restart({ model: new ScriptedChatModel([]) });
    await slack.settle();
    expect(
      slack.api.callsTo('chat.postMessage').filter((call) => call.params.channel === channel),
    ).toHaveLength(1);
  });

  it('fails the turn with one short notice when the model is rate limited', async () => {
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([new ModelRateLimited('429 from the provider: slow down')]),
    });
    slack.api.failNext('chat.postMessage', { type: 'http', status: 502 });

    const threadTs = await slack.mention('anything on fire?');
    await slack.api.waitFor('reactions.add', (call) => call.params.name === 'x');
    await slack.api.waitFor('chat.postMessage', (call) => call.response.ok === true);
    await slack.settle();

    const notices = slack.api.thread(channel, threadTs).map((message) => message.text);
    expect(notices).toEqual([
      '⚠️ Something went wrong: the model is rate limited right now. Send your message again in a minute.',
    ]);
    expect(notices[0]).not.toContain('slow down');
    expect(readRows(slack.databasePath, 'SELECT status, error_code FROM turns')).toEqual([
      { status: 'failed', error_code: 'model_rate_limited' },
    ]);
  });
});
