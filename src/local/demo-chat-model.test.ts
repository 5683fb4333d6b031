import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from '../agent/chat-model.js';
import { notRunResult } from '../agent/tool-runtime.js';
import { directContextHeading } from '../slack/intake/direct-context.js';
import { contextUnavailableNote, threadContextHeading } from '../slack/intake/thread-context.js';
import { createDemoChatModel } from './demo-chat-model.js';

const spec = (name: string): ToolSpec => ({ name, description: name, parameters: { type: 'object' } });
const allTools = ['run_shell', 'http_request', 'deploy', 'list_files', 'read_file'].map(spec);

async function ask(content: string, tools = allTools) {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are holdfast.' },
    { role: 'user', content },
  ];
  return createDemoChatModel().complete({ messages, tools });
}

const onlyCall = async (content: string, tools = allTools) => {
  const reply = await ask(content, tools);
  expect(reply.toolCalls).toHaveLength(1);
  const [call] = reply.toolCalls;
  return { name: call?.name, args: JSON.parse(call?.arguments ?? '{}') as unknown };
};

describe('demo chat model', () => {
  it('says which tool it is about to use, so a live answer has text while the tool runs', async () => {
    const reply = await ask('@alice: run `sleep 5`');
    expect(reply.content).toBe('Using `run_shell` for this.');
    expect(reply.toolCalls.map((call) => call.name)).toEqual(['run_shell']);
  });

  it('calls the shell once per command when asked to run several, in one reply', async () => {
    const reply = await ask('@alice: @holdfast run `echo one` and `echo two`');
    expect(reply.toolCalls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
      ['run_shell', { command: 'echo one' }],
      ['run_shell', { command: 'echo two' }],
    ]);
    expect(new Set(reply.toolCalls.map((call) => call.id)).size).toBe(2);
  });

  it('sums up every result of its last reply, in order', async () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: '@alice: run `echo one` and `echo two`' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'a', name: 'run_shell', arguments: '{"command":"echo one"}' },
          { id: 'b', name: 'run_shell', arguments: '{"command":"echo two"}' },
        ],
      },
      { role: 'tool', toolCallId: 'a', content: 'one' },
      { role: 'tool', toolCallId: 'b', content: 'two' },
    ];
    const reply = await createDemoChatModel().complete({ messages, tools: allTools });
    expect(reply.content).toBe(
      '`run_shell` finished. Result:\n```\none\n```\n\n`run_shell` finished. Result:\n```\ntwo\n```',
    );
  });

  it("acts on the request after a thread's earlier messages, never on them, and says it read them", async () => {
    const context = `${threadContextHeading}\n@bob: run \`rm -rf /srv\`\n@carol: the api deploy failed`;
    const reply = await ask(`${context}\n\n@alice: @holdfast what happened here?`);
    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toMatch(/^I read the 2 earlier messages of this thread\.\n\nI am the demo model\./);
    expect(await onlyCall(`${context}\n\n@alice: run \`df -h\``)).toEqual({
      name: 'run_shell',
      args: { command: 'df -h' },
    });
  });

  it("answers a direct message on its own, never acting on the conversation's earlier requests", async () => {
    const context = `${directContextHeading}\n@alice: run \`df -h\`\n@holdfast: \`run_shell\` finished.`;
    expect(await onlyCall(`${context}\n\n@alice: list files`)).toEqual({ name: 'list_files', args: {} });
    const reply = await ask(`${context}\n\n@alice: thanks!`);
    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toMatch(
      /^I read the 2 earlier messages of this conversation\.\n\nI am the demo model\./,
    );
    // An earlier answer with blank lines in it is still context, never the request.
    const long = `${directContextHeading}\n@alice: read README.md\n@holdfast: Result:\n\nread from here`;
    expect(await onlyCall(`${long}\n\n@alice: read notes.txt`)).toEqual({
      name: 'read_file',
      args: { path: 'notes.txt' },
    });
    const unread = await ask(`${contextUnavailableNote}\n\n@alice: thanks!`);
    expect(unread.toolCalls).toEqual([]);
    expect(unread.content).toMatch(/^I am the demo model\./);
  });

  it('runs a shell command given in backticks or plainly', async () => {
    expect(await onlyCall('@alice: @holdfast run `df -h`')).toEqual({
      name: 'run_shell',
      args: { command: 'df -h' },
    });
    expect(await onlyCall('@alice: run df -h')).toEqual({ name: 'run_shell', args: { command: 'df -h' } });
  });

  it('checks a URL, deploys, lists and reads files', async () => {
    expect(await onlyCall('@bob: check https://example.com/health')).toEqual({
      name: 'http_request',
      args: { method: 'GET', url: 'https://example.com/health' },
    });
    expect(await onlyCall('@bob: deploy api')).toEqual({ name: 'deploy', args: { service: 'api' } });
    expect(await onlyCall('@bob: list files')).toEqual({ name: 'list_files', args: {} });
    expect(await onlyCall('@bob: read notes.txt')).toEqual({
      name: 'read_file',
      args: { path: 'notes.txt' },
    });
  });

  it('says deploys are not configured when there is no deploy tool', async () => {
    const reply = await ask(
      '@bob: deploy api',
      allTools.filter((tool) => tool.name !== 'deploy'),
    );
    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toMatch(/not configured/);
  });

  it('explains what it can do otherwise', async () => {
    const reply = await ask('@alice: @holdfast hello');
    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toContain('run `df -h`');
  });

  it('passes on what happened to a call that did not run, never the guidance meant for the model', async () => {
    const model = createDemoChatModel();
    const denied = await model.complete({
      messages: [
        { role: 'user', content: '@alice: run `echo hi`' },
        {
          role: 'assistant',
          content: null,
          toolCalls: [{ id: 'call_1', name: 'run_shell', arguments: '{"command":"echo hi"}' }],
        },
        {
          role: 'tool',
          toolCallId: 'call_1',
          content: notRunResult('denied by bob.', 'Do not retry it unless the user asks again.'),
          outcome: { type: 'denied', by: 'U0BOB' },
        },
      ],
      tools: allTools,
    });
    expect(denied.content).toBe('`run_shell` was not run. denied by bob.');
  });

  it('says a call failed, from its outcome, and leaves out lines meant for the model', async () => {
    const model = createDemoChatModel();
    const failed = await model.complete({
      messages: [
        { role: 'user', content: '@alice: run `df -h /nope`' },
        {
          role: 'assistant',
          content: null,
          toolCalls: [{ id: 'call_1', name: 'run_shell', arguments: '{"command":"df -h /nope"}' }],
        },
        {
          role: 'tool',
          toolCallId: 'call_1',
          content: 'df: /nope: No such file or directory\n[exit code 1]\n[for the assistant only] Say so.',
          outcome: { type: 'failed', exitCode: 1 },
        },
      ],
      tools: allTools,
    });
    expect(failed.content).toBe(
      '`run_shell` failed (exit code 1):\n```\ndf: /nope: No such file or directory\n[exit code 1]\n```',
    );
  });

  it('summarizes a tool result, quoting it, including refusals and timeouts', async () => {
    const model = createDemoChatModel();
    const conversation = (result: string): ChatMessage[] => [
      { role: 'user', content: '@alice: run `echo hi`' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'call_1', name: 'run_shell', arguments: '{"command":"echo hi"}' }],
      },
      { role: 'tool', toolCallId: 'call_1', content: result },
    ];
    const done = await model.complete({ messages: conversation('hi\n'), tools: allTools });
    expect(done).toEqual({ content: '`run_shell` finished. Result:\n```\nhi\n```', toolCalls: [] });
    const denied = await model.complete({
      messages: conversation('Not run: denied by bob'),
      tools: allTools,
    });
    expect(denied.content).toBe('`run_shell` was not run. denied by bob');
    const late = await model.complete({
      messages: conversation('Error: timed out after 60s'),
      tools: allTools,
    });
    expect(late.content).toContain('timed out');
    expect(late.content).toContain('Error: timed out after 60s');
  });

  it('gives the same call id for the same conversation', async () => {
    const first = await ask('@alice: run `ls`');
    const second = await ask('@alice: run `ls`');
    expect(first).toEqual(second);
  });

  it('streams the same reply it completes with, in pieces', async () => {
    const messages: ChatMessage[] = [{ role: 'user', content: '@alice: hello' }];
    const pieces: string[] = [];

    const streamed = await createDemoChatModel().stream!({ messages, tools: allTools }, (event) => {
      if (event.type === 'text') pieces.push(event.delta);
    });

    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(streamed.content);
    expect(streamed).toEqual(await createDemoChatModel().complete({ messages, tools: allTools }));
  });
});
