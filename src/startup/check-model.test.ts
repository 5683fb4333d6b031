import nock from 'nock';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { API_HOST, openaiError, useFakeOpenAI } from '../../test/support/fake-openai.js';
import { modelCheck } from './check-model.js';

useFakeOpenAI();

const check = (model = 'gpt-test') =>
  modelCheck({ client: new OpenAI({ apiKey: 'sk-test', baseURL: `${API_HOST}/v1`, maxRetries: 3 }), model });

describe('the model check', () => {
  it('passes when the endpoint serves the model', async () => {
    nock(API_HOST).get('/v1/models/gpt-test').reply(200, { id: 'gpt-test', object: 'model' });
    expect(await check().run()).toEqual({
      type: 'ok',
      detail: `OPENAI_MODEL=gpt-test is served by ${API_HOST}/v1`,
    });
  });

  it('names OPENAI_API_KEY when the key is refused, asking once', async () => {
    const scope = nock(API_HOST)
      .get('/v1/models/gpt-test')
      .once()
      .reply(
        401,
        openaiError('Incorrect API key provided: sk-test.', 'invalid_request_error', 'invalid_api_key'),
      );
    const outcome = await check().run();
    expect(outcome).toMatchObject({
      type: 'problem',
      problem: `OPENAI_API_KEY was rejected by ${API_HOST}/v1 (HTTP 401)`,
    });
    expect(JSON.stringify(outcome)).not.toContain('sk-test');
    expect(scope.isDone()).toBe(true);
  });

  it('only warns when the provider is having trouble, so start-up goes on', async () => {
    nock(API_HOST).get('/v1/models/gpt-test').reply(503, 'upstream unavailable');
    expect(await check().run()).toMatchObject({
      type: 'warning',
      problem: `${API_HOST}/v1 answered HTTP 503 when asked for the model`,
    });
  });

  it('cannot judge an endpoint that lists no models, and says so', async () => {
    nock(API_HOST).get('/v1/models/gpt-test').reply(404, {}).get('/v1/models').reply(404, {});
    expect(await check().run()).toMatchObject({ type: 'skipped' });
  });

  it('lists what the endpoint serves when nothing is close to the name', async () => {
    nock(API_HOST)
      .get('/v1/models/claude')
      .reply(404, {})
      .get('/v1/models')
      .reply(200, { object: 'list', data: [{ id: 'gpt-4.1-mini' }, { id: 'gpt-4.1' }] });
    expect(await check('claude').run()).toEqual({
      type: 'problem',
      problem: `OPENAI_MODEL=claude does not exist at ${API_HOST}/v1`,
      fix: 'Set OPENAI_MODEL to a model the endpoint serves (it lists `gpt-4.1-mini`, `gpt-4.1`).',
    });
  });
});
