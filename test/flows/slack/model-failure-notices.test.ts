import nock from 'nock';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createOpenAIChatModel } from '../../../src/llm/index.js';
import {
  API_HOST,
  COMPLETIONS_PATH,
  harness,
  openaiError,
  useFakeOpenAI,
} from '../../support/fake-openai.js';
import { createTestLogger } from '../../support/test-logger.js';
import { freePort } from '../local/holdfast-process.js';
import { channel, readRows, startSlackHarness } from './slack-harness.js';

useFakeOpenAI();

async function noticeAfterMention(slack: Awaited<ReturnType<typeof startSlackHarness>>): Promise<string[]> {
  const threadTs = await slack.mention('how full is the disk?');
  await slack.api.waitFor('reactions.add', (call) => call.params.name === 'x');
  await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === threadTs);
  await slack.settle();
  return slack.api.thread(channel, threadTs).map((message) => message.text);
}

describe('a turn the model cannot serve, as the thread reads it', () => {
  it('names the configured model and where it was looked for when the model does not exist', async () => {
    nock(API_HOST)
      .post(COMPLETIONS_PATH)
      .reply(
        404,
        openaiError('The model `gpt-test` does not exist.', 'invalid_request_error', 'model_not_found'),
      );
    const slack = await startSlackHarness({ model: harness().model });

    expect(await noticeAfterMention(slack)).toEqual([
      `⚠️ Something went wrong: the configured model \`gpt-test\` does not exist at ${API_HOST}/v1. An admin needs to set OPENAI_MODEL to a model it serves (or fix OPENAI_BASE_URL).`,
    ]);
    expect(readRows(slack.databasePath, 'SELECT status, error_code FROM turns')).toEqual([
      { status: 'failed', error_code: 'model_not_found' },
    ]);
  });

  it('names the host and the reason when the model endpoint cannot be reached', async () => {
    const port = await freePort();
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    const model = createOpenAIChatModel({ client, model: 'gpt-test', logger: createTestLogger().logger });
    const slack = await startSlackHarness({ model });

    expect(await noticeAfterMention(slack)).toEqual([
      `⚠️ Something went wrong: could not reach the model endpoint http://127.0.0.1:${port}/v1: connection refused: nothing is listening there (ECONNREFUSED). An admin needs to check OPENAI_BASE_URL and the network; send your message again once it is fixed.`,
    ]);
  });
});
