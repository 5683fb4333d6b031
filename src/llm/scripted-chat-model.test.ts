import { describe, expect, it } from 'vitest';
import type { ChatMessage, ModelStreamEvent } from '../agent/chat-model.js';
import { reply, ScriptExhaustedError, ScriptedChatModel } from './scripted-chat-model.js';

const question: ChatMessage[] = [{ role: 'user', content: 'restart the api' }];

describe('ScriptedChatModel', () => {
  it('plays its replies back in order and records what each request saw', async () => {
    const model = new ScriptedChatModel([
      reply.toolCalls(['run_shell', { command: 'systemctl restart api' }]),
      reply.text('Restarted.'),
    ]);
    const messages: ChatMessage[] = [...question];

    const first = await model.complete({ messages, tools: [] });
    messages.push({ role: 'assistant', content: null, toolCalls: first.toolCalls });
    const second = await model.complete({ messages, tools: [] });

    expect(first.toolCalls).toEqual([
      { id: 'call_1', name: 'run_shell', arguments: '{"command":"systemctl restart api"}' },
    ]);
    expect(second).toEqual({ content: 'Restarted.', toolCalls: [] });
    expect(model.calls.map((call) => call.messages.length)).toEqual([1, 2]);
    expect(model.remaining).toBe(0);
  });

  it('throws a scripted error in its turn', async () => {
    const outage = new Error('provider down');
    const model = new ScriptedChatModel([outage]);

    await expect(model.complete({ messages: question, tools: [] })).rejects.toBe(outage);
  });

  it('throws ScriptExhaustedError when asked more often than it was scripted', async () => {
    const model = new ScriptedChatModel([reply.text('only once')]);
    await model.complete({ messages: question, tools: [] });

    const error = await model.complete({ messages: question, tools: [] }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ScriptExhaustedError);
    expect(error).toMatchObject({ code: 'model_script_exhausted' });
    expect(model.calls).toHaveLength(2);
  });

  it('streams a step as a provider would: the text in pieces that join back to it, then the calls', async () => {
    const model = new ScriptedChatModel([
      {
        content: 'Restarting the api now.',
        toolCalls: [{ id: 'call_r', name: 'run_shell', arguments: '{}' }],
      },
    ]);
    const events: ModelStreamEvent[] = [];

    const streamed = await model.stream({ messages: question, tools: [] }, (event) => events.push(event));

    expect(streamed.toolCalls).toEqual([{ id: 'call_r', name: 'run_shell', arguments: '{}' }]);
    expect(events).toEqual([
      { type: 'text', delta: 'Restarting ' },
      { type: 'text', delta: 'the ' },
      { type: 'text', delta: 'api ' },
      { type: 'text', delta: 'now.' },
      { type: 'tool-call', index: 0, id: 'call_r', name: 'run_shell' },
    ]);
    expect(model.calls).toHaveLength(1);
  });
});
