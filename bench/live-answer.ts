/**
 * Live answers as people see them: the real app in HTTP mode against the fake Slack Web API, a model that
 * streams its answer a word at a time with a provider's pace, and signed mentions. Measured per answer:
 * the time from the mention to the first streamed text reaching Slack, and how many Web API calls the
 * thread cost (stream calls, the answer, status reactions), with holdfast's production settings.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import type { ChatModel, ModelReply } from '../src/agent/chat-model.js';
import { loadConfig } from '../src/config.js';
import { startHoldfast } from '../src/main.js';
import { startFakeSlackApi } from '../test/support/fake-slack-api.js';
import { postSignedToSlackApp } from '../test/support/sign-slack-request.js';
import { percentile } from './percentile.js';

export interface LiveAnswerResult {
  readonly answers: number;
  readonly firstTextP50Ms: number;
  readonly firstTextP99Ms: number;
  readonly slackCallsPerAnswer: number;
  readonly streamCallsPerAnswer: number;
}

const channel = 'C0BENCH';
// Five seconds of writing: a preview is shown only for a turn still running after `defaultShowAfterMs`
// (4 s; a quicker answer is posted whole, without a stream's calls), so a shorter one never streams.
const words = 200;
const wordEveryMs = 25;
const answer = Array.from({ length: words }, (_, i) => `word${i}`).join(' ');

/** A provider streaming `answer` at a steady pace (the first word after one interval). */
const pacedModel: ChatModel = {
  complete: async () => ({ content: answer, toolCalls: [] }),
  async stream(_request, onEvent): Promise<ModelReply> {
    for (const [index, word] of answer.split(' ').entries()) {
      await sleep(wordEveryMs);
      onEvent({ type: 'text', delta: index === 0 ? word : ` ${word}` });
    }
    return { content: answer, toolCalls: [] };
  },
};

export async function measureLiveAnswers(answers: number): Promise<LiveAnswerResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-bench-live-'));
  const api = await startFakeSlackApi();
  api.setUser('U0BENCH', { name: 'bench' });
  const signingSecret = randomBytes(16).toString('hex');
  const config = loadConfig(
    {
      SLACK_BOT_TOKEN: api.botToken,
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: api.url,
      PORT: '0',
      HOLDFAST_DB: path.join(dir, 'holdfast.db'),
      HOLDFAST_WORKDIR: path.join(dir, 'workspace'),
      HOLDFAST_SWEEP_INTERVAL: '1h',
      HOLDFAST_LOG_LEVEL: 'silent',
    },
    dir,
  );
  const holdfast = await startHoldfast(config, { model: pacedModel, logger: pino({ level: 'silent' }) });
  const firstText: number[] = [];
  let calls = 0;
  let streamCalls = 0;
  try {
    for (let n = 0; n < answers; n++) {
      const ts = `1767400000.${String(n).padStart(6, '0')}`;
      const before = api.calls.length;
      const started = performance.now();
      await postSignedToSlackApp(holdfast.eventsUrl as string, signingSecret, {
        json: {
          team_id: api.identity.teamId,
          api_app_id: 'A0BENCH',
          type: 'event_callback',
          event_id: `Ev${n}`,
          event_time: Math.floor(Date.now() / 1000),
          event: {
            type: 'app_mention',
            user: 'U0BENCH',
            text: `<@${api.identity.botUserId}> tell me a long story`,
            ts,
            event_ts: ts,
            channel,
          },
        },
      });
      const streamed = (call: { params: Record<string, unknown> }) => call.params.thread_ts === ts;
      await api.waitFor('chat.startStream', streamed, 30_000);
      firstText.push(performance.now() - started);
      await api.waitFor(
        'reactions.add',
        (call) => call.params.name === 'white_check_mark' && call.params.timestamp === ts,
        30_000,
      );
      await holdfast.runtime.idle();
      const thread = api.calls
        .slice(before)
        .filter((call) => call.method !== 'users.info' && call.method !== 'auth.test');
      calls += thread.length;
      streamCalls += thread.filter((call) => /^chat\.(start|append|stop)Stream$/.test(call.method)).length;
    }
  } finally {
    await holdfast.stop();
    await api.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return {
    answers,
    firstTextP50Ms: percentile(firstText, 50),
    firstTextP99Ms: percentile(firstText, 99),
    slackCallsPerAnswer: calls / answers,
    streamCallsPerAnswer: streamCalls / answers,
  };
}
