import { describe, expect, it } from 'vitest';
import {
  brokenSse,
  chunk,
  conversation,
  harness,
  MAX_RETRIES,
  serveStream,
  shellTool,
  sse,
  usageChunk,
  useFakeOpenAI,
} from '../../test/support/fake-openai.js';
import type { ModelStreamEvent } from '../agent/chat-model.js';
import { ModelRequestAbortedError, ModelUnavailableError } from './model-errors.js';

useFakeOpenAI();

const textStream = sse([
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'logs is ' }),
  chunk({ content: '2.1G.' }),
  chunk({}, 'stop'),
  usageChunk(42, 7),
]);

describe('createOpenAIChatModel streaming', () => {
  describe('when the model answers in text', () => {
    it('asks for a stream with usage, reports each piece and returns the whole reply with usage', async () => {
      const { model, requests } = harness();
      const scope = serveStream(requests, textStream);
      const events: ModelStreamEvent[] = [];

      const result = await model.stream!({ messages: conversation, tools: [shellTool] }, (event) => {
        events.push(event);
      });

      expect(result).toEqual({
        content: 'logs is 2.1G.',
        toolCalls: [],
        usage: { promptTokens: 42, completionTokens: 7 },
      });
      expect(events).toEqual([
        { type: 'text', delta: 'logs is ' },
        { type: 'text', delta: '2.1G.' },
      ]);
      expect(scope.isDone()).toBe(true);
      expect(requests).toEqual([
        expect.objectContaining({ model: 'gpt-test', stream: true, stream_options: { include_usage: true } }),
      ]);
    });
  });

  describe('when the model asks for one tool call', () => {
    it('assembles the arguments from their pieces and announces the call once', async () => {
      const { model, requests } = harness();
      serveStream(
        requests,
        sse([
          chunk({ role: 'assistant', content: null }),
          chunk({
            tool_calls: [
              { index: 0, id: 'call_du', type: 'function', function: { name: 'run_shell', arguments: '' } },
            ],
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command":' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '"du -sh /srv/logs"}' } }] }),
          chunk({}, 'tool_calls'),
          usageChunk(50, 12),
        ]),
      );
      const events: ModelStreamEvent[] = [];

      const result = await model.stream!({ messages: conversation, tools: [shellTool] }, (event) => {
        events.push(event);
      });

      expect(result).toEqual({
        content: null,
        toolCalls: [{ id: 'call_du', name: 'run_shell', arguments: '{"command":"du -sh /srv/logs"}' }],
        usage: { promptTokens: 50, completionTokens: 12 },
      });
      expect(events).toEqual([{ type: 'tool-call', index: 0, id: 'call_du', name: 'run_shell' }]);
    });
  });

  describe('when the model asks for parallel calls whose arguments arrive interleaved', () => {
    it('keeps each piece with its call by index and returns the calls in index order', async () => {
      const { model, requests } = harness();
      serveStream(
        requests,
        sse([
          chunk({ content: 'Checking both.' }),
          chunk({
            tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'run_shell' } }],
          }),
          chunk({
            tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'http_get' } }],
          }),
          chunk({ tool_calls: [{ index: 1, function: { arguments: '{"url":' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command":' } }] }),
          chunk({ tool_calls: [{ index: 1, function: { arguments: '"https://status.example"}' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '"uptime"}' } }] }),
          chunk({}, 'tool_calls'),
          usageChunk(),
        ]),
      );
      const events: ModelStreamEvent[] = [];

      const result = await model.stream!({ messages: conversation, tools: [shellTool] }, (event) => {
        events.push(event);
      });

      expect(result.content).toBe('Checking both.');
      expect(result.toolCalls).toEqual([
        { id: 'call_a', name: 'run_shell', arguments: '{"command":"uptime"}' },
        { id: 'call_b', name: 'http_get', arguments: '{"url":"https://status.example"}' },
      ]);
      expect(events).toEqual([
        { type: 'text', delta: 'Checking both.' },
        { type: 'tool-call', index: 0, id: 'call_a', name: 'run_shell' },
        { type: 'tool-call', index: 1, id: 'call_b', name: 'http_get' },
      ]);
    });
  });

  describe('when the stream breaks off mid-way', () => {
    it('says the partial text is void, asks again and returns the complete second reply', async () => {
      const { model, requests } = harness();
      const scope = serveStream(requests, brokenSse([chunk({ content: 'logs is ' })]), textStream);
      const events: ModelStreamEvent[] = [];

      const result = await model.stream!({ messages: conversation, tools: [] }, (event) => {
        events.push(event);
      });

      expect(result.content).toBe('logs is 2.1G.');
      expect(events).toEqual([
        { type: 'text', delta: 'logs is ' },
        { type: 'restart' },
        { type: 'text', delta: 'logs is ' },
        { type: 'text', delta: '2.1G.' },
      ]);
      expect(scope.isDone()).toBe(true);
      expect(requests).toHaveLength(2);
    });

    it('gives up with ModelUnavailableError after the configured retries', async () => {
      const { model, requests } = harness();
      const broken = brokenSse([chunk({ content: 'logs' })]);
      serveStream(requests, ...Array.from({ length: MAX_RETRIES + 1 }, () => broken));

      const error = await model.stream!({ messages: conversation, tools: [] }, () => {}).catch(
        (e: unknown) => e,
      );

      expect(error).toBeInstanceOf(ModelUnavailableError);
      expect(error).toMatchObject({ code: 'model_unavailable', retryable: true });
      expect(requests).toHaveLength(MAX_RETRIES + 1);
    });
  });

  describe('when the stream ends without the model saying it is done', () => {
    it('treats the reply as cut off and asks again', async () => {
      const { model, requests } = harness();
      serveStream(requests, sse([chunk({ content: 'logs is ' })]), textStream);

      const result = await model.stream!({ messages: conversation, tools: [] }, () => {});

      expect(result.content).toBe('logs is 2.1G.');
      expect(requests).toHaveLength(2);
    });
  });

  describe('when the turn is stopped while the answer streams', () => {
    it('throws ModelRequestAbortedError and does not ask again', async () => {
      const { model, requests } = harness();
      serveStream(requests, textStream, textStream);
      const turn = new AbortController();

      const error = await model.stream!(
        { messages: conversation, tools: [], signal: turn.signal },
        (event) => {
          if (event.type === 'text') turn.abort();
        },
      ).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelRequestAbortedError);
      expect(requests).toHaveLength(1);
    });
  });
});
