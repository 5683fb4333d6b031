import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './chat-model.js';
import { contextBudgetFor, estimateTokens, estimateToolTokens, fitToBudget } from './model-context.js';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const answer = (content: string): ChatMessage => ({ role: 'assistant', content });
const calls = (...ids: string[]): ChatMessage => ({
  role: 'assistant',
  content: null,
  toolCalls: ids.map((id) => ({ id, name: 'run_shell', arguments: '{"command":"df -h"}' })),
});
const result = (id: string, content = 'ok'): ChatMessage => ({ role: 'tool', toolCallId: id, content });

describe('fitToBudget', () => {
  it('keeps everything that fits, untouched', () => {
    const history = [user('hi'), answer('hello')];
    expect(fitToBudget(history, 1_000)).toEqual({ messages: history, dropped: 0 });
  });

  it('drops the oldest exchanges first and tells the model how many', () => {
    const old = [user('a'.repeat(700)), answer('b'.repeat(700))];
    const recent = [user('what now?'), answer('this.')];
    const budget = recent.reduce((sum, message) => sum + estimateTokens(message), 0) + 10;

    const fitted = fitToBudget([...old, ...recent], budget);

    expect(fitted.dropped).toBe(2);
    expect(fitted.messages.slice(1)).toEqual(recent);
    expect(fitted.messages[0]).toEqual({
      role: 'user',
      content:
        "[holdfast: the 2 oldest messages of this thread were left out to fit the model's context. " +
        'If something from earlier is needed, ask the user for it.]',
    });
  });

  it('never separates a tool call from its results', () => {
    const history = [
      user('check'),
      calls('c1', 'c2'),
      result('c1', 'x'.repeat(2_000)),
      result('c2'),
      answer('done'),
    ];
    const budget = estimateTokens(answer('done')) + estimateTokens(result('c2')) + 5;

    const fitted = fitToBudget(history, budget);

    expect(fitted.messages.slice(1)).toEqual([answer('done')]);
    expect(fitted.messages.some((message) => message.role === 'tool')).toBe(false);
  });

  it('keeps the newest exchange even when it alone is over the budget', () => {
    const history = [user('old'), calls('c1'), result('c1', 'y'.repeat(10_000))];
    const fitted = fitToBudget(history, 50);
    expect(fitted.messages.slice(1)).toEqual([calls('c1'), result('c1', 'y'.repeat(10_000))]);
    expect(fitted.dropped).toBe(1);
  });
});

describe('estimateToolTokens', () => {
  it('counts the specs as the request sends them, and the same again for the same tools', () => {
    const tools = [
      {
        name: 'run_shell',
        description: 'Runs a command.',
        jsonSchema: { type: 'object', required: ['command'] },
      },
      { name: 'noop', description: 'Does nothing.', jsonSchema: { type: 'object' } },
    ];
    const sent = tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.jsonSchema,
    }));
    const expected = Math.ceil(JSON.stringify(sent).length / 3.5);
    expect(estimateToolTokens(tools)).toBe(expected);
    expect(estimateToolTokens(tools)).toBe(expected);
    expect(estimateToolTokens([])).toBe(1);
    expect(estimateToolTokens(tools.slice(1))).toBe(Math.ceil(JSON.stringify(sent.slice(1)).length / 3.5));
  });
});

describe('contextBudgetFor', () => {
  it.each([
    ['gpt-4.1-mini', 112_000],
    ['gpt-4o', 112_000],
    ['gpt-3.5-turbo', 8_385],
    ['some-local-model', 24_000],
  ])('%s → %i tokens', (model, tokens) => {
    expect(contextBudgetFor(model)).toBe(tokens);
  });
});
