import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  completion,
  conversation,
  harness,
  serve,
  shellTool,
  toolCall,
  useFakeOpenAI,
} from '../../test/support/fake-openai.js';

useFakeOpenAI();

describe('createOpenAIChatModel', () => {
  describe('when the model asks for one tool call', () => {
    it('sends the mapped transcript and tool schema, and returns the call', async () => {
      const { model, requests } = harness();
      const scope = serve(requests, [
        200,
        completion(
          { content: null, tool_calls: [toolCall('call_du', 'run_shell', '{"command":"du -sh /srv/logs"}')] },
          'tool_calls',
        ),
      ]);

      const result = await model.complete({ messages: conversation, tools: [shellTool] });

      expect(result).toEqual({
        content: null,
        toolCalls: [{ id: 'call_du', name: 'run_shell', arguments: '{"command":"du -sh /srv/logs"}' }],
        usage: { promptTokens: 42, completionTokens: 7 },
      });
      expect(scope.isDone()).toBe(true);
      expect(requests).toEqual([
        {
          model: 'gpt-test',
          messages: [
            { role: 'system', content: 'You are holdfast.' },
            { role: 'user', content: 'what is in /srv?', name: 'U024BE7LH' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_ls',
                  type: 'function',
                  function: { name: 'run_shell', arguments: '{"command":"ls /srv"}' },
                },
              ],
            },
            { role: 'tool', tool_call_id: 'call_ls', content: 'app\nlogs' },
            { role: 'assistant', content: 'It holds app and logs.' },
            { role: 'user', content: 'how big is logs?' },
          ],
          tools: [
            {
              type: 'function',
              function: {
                name: 'run_shell',
                description: 'Runs a shell command in the work directory',
                parameters: shellTool.parameters,
              },
            },
          ],
        },
      ]);
    });
  });

  describe('when the model asks for parallel tool calls', () => {
    it('returns every call in the order the model gave them', async () => {
      const { model, requests } = harness();
      serve(requests, [
        200,
        completion(
          {
            content: null,
            tool_calls: [
              toolCall('call_a', 'run_shell', '{"command":"uptime"}'),
              toolCall('call_b', 'http_get', '{"url":"https://status.example"}'),
            ],
          },
          'tool_calls',
        ),
      ]);

      const result = await model.complete({ messages: conversation, tools: [shellTool] });

      expect(result.toolCalls).toEqual([
        { id: 'call_a', name: 'run_shell', arguments: '{"command":"uptime"}' },
        { id: 'call_b', name: 'http_get', arguments: '{"url":"https://status.example"}' },
      ]);
    });
  });

  describe('when the model answers in text', () => {
    it('returns the text with no tool calls, and sends no tools key when there are none', async () => {
      const { model, requests } = harness();
      serve(requests, [200, completion({ content: 'logs is 2.1G.' })]);

      const result = await model.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] });

      expect(result).toEqual({
        content: 'logs is 2.1G.',
        toolCalls: [],
        usage: { promptTokens: 42, completionTokens: 7 },
      });
      expect(requests).toEqual([{ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }]);
    });
  });

  describe('when one turn makes many calls with the same signal', () => {
    it('leaves no listener behind on the signal (no MaxListenersExceededWarning after ten calls)', async () => {
      const { model, requests } = harness();
      serve(
        requests,
        ...Array.from({ length: 12 }, () => [200, completion({ content: 'ok' })] as [number, unknown]),
      );
      const turn = new AbortController();

      for (let call = 0; call < 12; call += 1) {
        await model.complete({ messages: conversation, tools: [], signal: turn.signal });
      }

      expect(requests).toHaveLength(12);
      expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
    });
  });
});
