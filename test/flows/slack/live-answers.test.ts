import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChatModel, ChatRequest, ModelReply, ModelStreamEvent } from '../../../src/agent/chat-model.js';
import type { Tool } from '../../../src/agent/tool.js';
import { ModelRequestAbortedError } from '../../../src/llm/model-errors.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import type { FakeSlackApi, SlackApiCall } from '../../support/fake-slack-api.js';
import { channel, eventually, readRows, startSlackHarness } from './slack-harness.js';

/** Streams shown at once and appended to as often as there is something new. */
const live = { showAfterMs: 0, streamIntervalMs: 0, updateIntervalMs: 0 };

type Step = (request: ChatRequest, emit: (event: ModelStreamEvent) => void) => Promise<ModelReply>;

/** A provider that streams: each step emits its pieces when the test says, then returns the reply. */
function streamingModel(...steps: Step[]): ChatModel {
  const queue = [...steps];
  return {
    complete: () => Promise.reject(new Error('this model only streams')),
    async stream(request, onEvent) {
      const step = queue.shift();
      if (!step) throw new Error('the streaming model has no more steps');
      return step(request, onEvent);
    },
  };
}

function chunksOf(call: SlackApiCall): Array<Record<string, unknown>> {
  return Array.isArray(call.params.chunks) ? (call.params.chunks as Array<Record<string, unknown>>) : [];
}

/** Resolves once the stream has shown a chunk that matches (in the call that opened it, or later). */
async function streamShows(api: FakeSlackApi, matches: (chunk: Record<string, unknown>) => boolean) {
  const start = await api.waitFor('chat.startStream', (call) => call.response.ok === true);
  if (chunksOf(start).some(matches)) return;
  await api.waitFor('chat.appendStream', (call) => chunksOf(call).some(matches));
}

const text = (piece: string) => (chunk: Record<string, unknown>) =>
  chunk.type === 'markdown_text' && String(chunk.text).includes(piece);

/** The Web API methods that wrote to the thread, in order, repeats folded. */
function writes(api: FakeSlackApi): string[] {
  const methods = api.calls
    .map((call) => call.method)
    .filter((method) => /^chat\.(startStream|appendStream|stopStream|update|postMessage)$/.test(method));
  return methods.filter((method, index) => method !== methods[index - 1]);
}

function answerText(message: { text: string; blocks: readonly Record<string, unknown>[] } | undefined) {
  const sections = (message?.blocks ?? []) as Array<{ type: string; text?: { text: string } }>;
  return sections.map((block) => block.text?.text ?? '').join('');
}

describe('live answers', () => {
  it('streams the answer and a task per tool call, then the answer replaces the stream: one message', async () => {
    let slackApi: FakeSlackApi | undefined;
    const api = () => slackApi as FakeSlackApi;
    const diskUsage = defineTool({
      name: 'disk_usage',
      description: 'Reports how full the disks are.',
      parameters: z.object({}),
      permission: () => ({ type: 'allow', reason: 'read only' }),
      // The task shows as running while the tool runs.
      execute: async () => {
        await streamShows(api(), (chunk) => chunk.id === 'call_df' && chunk.status === 'in_progress');
        return '/ 41%';
      },
    });
    const model = streamingModel(
      async (_request, emit) => {
        emit({ type: 'text', delta: 'Let me look. ' });
        emit({ type: 'tool-call', index: 0, id: 'call_df', name: 'disk_usage' });
        return {
          content: 'Let me look. ',
          toolCalls: [{ id: 'call_df', name: 'disk_usage', arguments: '{}' }],
        };
      },
      async (_request, emit) => {
        emit({ type: 'text', delta: 'The disk ' });
        await streamShows(api(), text('The disk'));
        emit({ type: 'text', delta: 'is 41% full.' });
        return { content: 'The disk is 41% full.', toolCalls: [] };
      },
    );
    const slack = await startSlackHarness({ model, tools: [diskUsage as Tool], live });
    slackApi = slack.api;

    const threadTs = await slack.mention('how full is the disk?');
    await slack.api.waitFor('chat.update', (call) => String(call.params.text).includes('41% full'));
    await slack.settle();

    expect(writes(slack.api)).toEqual([
      'chat.startStream',
      'chat.appendStream',
      'chat.stopStream',
      'chat.update',
    ]);
    const start = slack.api.callsTo('chat.startStream')[0];
    expect(start?.params).toMatchObject({
      channel,
      thread_ts: threadTs,
      recipient_user_id: 'U0ALICE',
      recipient_team_id: slack.api.identity.teamId,
    });
    const thread = slack.api.thread(channel, threadTs);
    expect(thread).toHaveLength(1);
    expect(thread[0]).toMatchObject({ streaming: false, tasks: { call_df: { status: 'complete' } } });
    expect(answerText(thread[0])).toBe('The disk is 41% full.');
    // Tagged as the answer's first part, so a retry after a crash finds it instead of posting again.
    expect(thread[0]?.metadata?.event_payload.key).toMatch(/^answer:.+#0$/);
    expect(readRows(slack.databasePath, 'SELECT * FROM live_messages')).toEqual([]);
    expect(readRows(slack.databasePath, "SELECT status FROM outbox WHERE key LIKE 'answer:%'")).toEqual([
      { status: 'sent' },
    ]);
  });

  it('puts the preview off while the process is behind, and opens it once it catches up', async () => {
    let slackApi: FakeSlackApi | undefined;
    let behind = true;
    let looked = 0;
    let lookedTwice: () => void = () => {};
    const twice = new Promise<void>((resolve) => {
      lookedTwice = resolve;
    });
    const busy = () => {
      looked += 1;
      if (looked === 2) lookedTwice();
      return behind;
    };
    const model = streamingModel(async (_request, emit) => {
      emit({ type: 'text', delta: 'Checking the three hosts. ' });
      // The preview was due twice and put off both times: nothing reached Slack yet.
      await twice;
      expect(writes(slackApi as FakeSlackApi)).toEqual([]);
      behind = false;
      await streamShows(slackApi as FakeSlackApi, text('Checking the three hosts.'));
      emit({ type: 'text', delta: 'All three are healthy.' });
      return { content: 'Checking the three hosts. All three are healthy.', toolCalls: [] };
    });
    const slack = await startSlackHarness({ model, live: { ...live, busy } });
    slackApi = slack.api;

    await slack.mention('are the hosts healthy?');
    await slack.api.waitFor('chat.update', (call) =>
      answerText({ text: '', blocks: blocksOf(call) }).includes('healthy.'),
    );
    await slack.settle();

    expect(looked).toBeGreaterThanOrEqual(2);
    // Opened only once caught up (an append may follow, depending on when the rest of the text came).
    const written = writes(slack.api);
    expect(written[0]).toBe('chat.startStream');
    expect(written.slice(-2)).toEqual(['chat.stopStream', 'chat.update']);
  });

  it("shows the last word of a reply's text once the model goes on to its calls, while the tool runs", async () => {
    let slackApi: FakeSlackApi | undefined;
    const diskUsage = defineTool({
      name: 'disk_usage',
      description: 'Reports how full the disks are.',
      parameters: z.object({}),
      permission: () => ({ type: 'allow', reason: 'read only' }),
      execute: async () => {
        await streamShows(slackApi as FakeSlackApi, text('Checking the disks.'));
        return '/ 41%';
      },
    });
    const model = streamingModel(
      async (_request, emit) => {
        emit({ type: 'text', delta: 'Checking the ' });
        emit({ type: 'text', delta: 'disks.' });
        emit({ type: 'tool-call', index: 0, id: 'call_df', name: 'disk_usage' });
        return {
          content: 'Checking the disks.',
          toolCalls: [{ id: 'call_df', name: 'disk_usage', arguments: '{}' }],
        };
      },
      async () => ({ content: 'The disk is 41% full.', toolCalls: [] }),
    );
    const slack = await startSlackHarness({ model, tools: [diskUsage as Tool], live });
    slackApi = slack.api;

    await slack.mention('how full is the disk?');
    await slack.api.waitFor('chat.update', (call) => String(call.params.text).includes('41% full'));
    await slack.settle();
  });

  it('keeps a message up to date with chat.update where streaming is refused, and the answer replaces it', async () => {
    let slackApi: FakeSlackApi | undefined;
    const model = streamingModel(async (_request, emit) => {
      emit({ type: 'text', delta: 'Checking the three hosts. ' });
      await (slackApi as FakeSlackApi).waitFor('chat.postMessage');
      emit({ type: 'text', delta: 'All three are healthy.' });
      return { content: 'Checking the three hosts. All three are healthy.', toolCalls: [] };
    });
    const slack = await startSlackHarness({
      model,
      live,
      beforeStart: async (api) => {
        api.failNext('chat.startStream', { type: 'error', error: 'channel_type_not_supported' });
        return undefined;
      },
    });
    slackApi = slack.api;

    const threadTs = await slack.mention('are the hosts healthy?');
    await slack.api.waitFor('chat.update', (call) =>
      answerText({ text: '', blocks: blocksOf(call) }).includes('healthy.'),
    );
    await slack.settle();

    expect(writes(slack.api)).toEqual(['chat.startStream', 'chat.postMessage', 'chat.update']);
    const placeholder = slack.api.callsTo('chat.postMessage')[0];
    expect(placeholder?.params.text).toContain('Checking the three hosts.');
    const thread = slack.api.thread(channel, threadTs);
    expect(thread).toHaveLength(1);
    expect(answerText(thread[0])).toBe('Checking the three hosts. All three are healthy.');
    expect(readRows(slack.databasePath, 'SELECT * FROM live_messages')).toEqual([]);
  });

  it('a stream cut off by a stop mid-answer is closed as interrupted by the next process, and the answer appears once', async () => {
    let slackApi: FakeSlackApi | undefined;
    const first = streamingModel(async (request, emit) => {
      emit({ type: 'text', delta: 'Patching host one of three, ' });
      await streamShows(slackApi as FakeSlackApi, text('Patching'));
      // Still writing when the process goes away.
      return new Promise<ModelReply>((_resolve, reject) => {
        request.signal?.addEventListener('abort', () => reject(new ModelRequestAbortedError()), {
          once: true,
        });
      });
    });
    const slack = await startSlackHarness({ model: first, live });
    slackApi = slack.api;
    const threadTs = await slack.mention('patch the hosts');
    await streamShows(slack.api, text('Patching'));
    const cut = slack.api.callsTo('chat.startStream')[0]?.response.ts as string;
    const recorded = () => readRows(slack.databasePath, 'SELECT ts FROM live_messages');
    await eventually(() => recorded().length > 0, 'the stream recorded');
    expect(readRows(slack.databasePath, 'SELECT turn_id, ts, kind FROM live_messages')).toMatchObject([
      { ts: cut, kind: 'stream' },
    ]);

    // The recovering process shows its own progress: it opens a stream of its own, closing the cut one first.
    const second = streamingModel(async (_request, emit) => {
      emit({ type: 'text', delta: 'Done: all three ' });
      await slack.api.waitFor(
        'chat.startStream',
        (call) => call.response.ok === true && call.response.ts !== cut,
      );
      emit({ type: 'text', delta: 'hosts patched.' });
      return { content: 'Done: all three hosts patched.', toolCalls: [] };
    });
    await slack.restart({ model: second });
    await slack.api.waitFor('chat.stopStream', (call) => call.params.ts === cut);
    await slack.settle();
    const answers = () =>
      slack.api
        .thread(channel, threadTs)
        .filter((message) => `${message.text}${answerText(message)}`.includes('all three hosts patched'));
    await eventually(() => answers().length > 0, 'the answer in the thread');

    expect(slack.api.message(channel, cut)).toMatchObject({ streaming: false });
    expect(slack.api.message(channel, cut)?.text).toContain('Interrupted');
    expect(answers()).toHaveLength(1);
    expect(readRows(slack.databasePath, 'SELECT * FROM live_messages')).toEqual([]);
  });

  it('never streams a configured secret, even one the model writes across two pieces', async () => {
    let slackApi: FakeSlackApi | undefined;
    const api = () => slackApi as FakeSlackApi;
    const model = streamingModel(async (_request, emit) => {
      emit({ type: 'text', delta: 'The bot token is xoxb-te' });
      await streamShows(api(), text('The bot token is'));
      emit({ type: 'text', delta: 'st-holdfast, rotate it. ' });
      await streamShows(api(), text('rotate it'));
      return { content: 'The bot token is xoxb-test-holdfast, rotate it.', toolCalls: [] };
    });
    const slack = await startSlackHarness({ model, live });
    slackApi = slack.api;

    const threadTs = await slack.mention('what is the bot token?');
    await slack.api.waitFor('chat.update', (call) => JSON.stringify(call.params).includes('rotate it'));
    await slack.settle();

    const shown = JSON.stringify(
      slack.api.calls.filter((call) => call.method.startsWith('chat.')).map((call) => call.params),
    );
    expect(shown).not.toContain('xoxb-te');
    expect(shown).toContain('rotate it');
    expect(slack.api.thread(channel, threadTs)).toHaveLength(1);
  });
});

function blocksOf(call: SlackApiCall): Record<string, unknown>[] {
  return Array.isArray(call.params.blocks) ? (call.params.blocks as Record<string, unknown>[]) : [];
}
