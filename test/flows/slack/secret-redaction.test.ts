import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChatRequest } from '../../../src/agent/chat-model.js';
import type { Tool } from '../../../src/agent/tool.js';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { tempDir } from '../../support/temp-dir.js';
import { readRows, type SlackHarness, startSlackHarness, waitForCard } from './slack-harness.js';

/** Everything a person could see: every Web API call holdfast made and every response_url post. */
function everythingPosted(slack: SlackHarness): string {
  return JSON.stringify([slack.api.calls.map((call) => call.params), slack.api.responses]);
}

function lastToolResult(request: ChatRequest): string {
  const last = request.messages.at(-1);
  return last?.role === 'tool' ? last.content : '';
}

async function harnessWithWorkdir(model: ScriptedChatModel, tools?: readonly Tool[]) {
  const workdir = tempDir('holdfast-secrets-work-').path;
  const slack = await startSlackHarness({
    model,
    tools,
    env: { HOLDFAST_WORKDIR: workdir, PATH: '/usr/bin:/bin' },
  });
  return { slack, workdir };
}

describe('secrets a tool prints', () => {
  it('never reach the transcript, the model or the thread when an approved command prints the signing secret', async () => {
    let secret = '';
    const model = new ScriptedChatModel([
      reply.toolCalls(['run_shell', { command: 'cat signing-secret && base64 signing-secret' }, 'call_cat']),
      // A model that repeats what it saw, and the secret itself for good measure.
      (request) => reply.text(`The file holds:\n${lastToolResult(request)}\nthat is ${secret}`),
    ]);
    const { slack, workdir } = await harnessWithWorkdir(model);
    secret = slack.signingSecret;
    const encoded = Buffer.from(`${secret}\n`).toString('base64');
    writeFileSync(`${workdir}/signing-secret`, `${secret}\n`);

    const threadTs = await slack.mention('what is in signing-secret?');
    const card = await waitForCard(slack.api, threadTs);
    await slack.click('allow', card);
    const answer = await slack.api.waitFor('chat.postMessage', (call) =>
      String(call.params.text).includes('The file holds'),
    );
    await slack.settle();

    const stored = readRows(slack.databasePath, "SELECT content FROM messages WHERE role = 'tool'");
    expect(stored).toHaveLength(1);
    expect(stored[0]?.content).toContain('[redacted slack signing secret]');
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(JSON.stringify(stored)).not.toContain(encoded.slice(4, 40));

    expect(model.calls).toHaveLength(2);
    const sentToModel = JSON.stringify(model.calls[1]?.messages);
    expect(sentToModel).not.toContain(secret);
    expect(sentToModel).not.toContain(encoded.slice(4, 40));

    expect(String(answer.params.text)).toContain('that is [redacted slack signing secret]');
    expect(everythingPosted(slack)).not.toContain(secret);
    expect(everythingPosted(slack)).not.toContain(encoded.slice(4, 40));
  });

  it('are redacted from a failing tool’s error, in its result and in the log', async () => {
    let secret = '';
    const leaky = defineTool({
      name: 'connect_db',
      description: 'Connects to the database.',
      parameters: z.object({}),
      permission: () => ({ type: 'allow', reason: 'read-only' }),
      execute: () => {
        throw new Error(`authentication failed for key ${secret}`);
      },
    }) as Tool;
    const model = new ScriptedChatModel([
      reply.toolCalls(['connect_db', {}, 'call_db']),
      (request) => reply.text(`It failed: ${lastToolResult(request)}`),
    ]);
    const { slack } = await harnessWithWorkdir(model, [leaky]);
    secret = slack.signingSecret;

    await slack.mention('connect to the database');
    await slack.api.waitFor('chat.postMessage', (call) => String(call.params.text).startsWith('It failed'));
    await slack.settle();

    const failure = slack.log.entries.find((entry) => entry.msg === 'tool failed');
    expect(failure).toBeDefined();
    expect(JSON.stringify(failure)).toContain(
      'authentication failed for key [redacted slack signing secret]',
    );
    expect(JSON.stringify(slack.log.entries)).not.toContain(secret);
    expect(JSON.stringify(readRows(slack.databasePath, 'SELECT content FROM messages'))).not.toContain(
      secret,
    );
    expect(everythingPosted(slack)).not.toContain(secret);
  });
});

describe('an approval card', () => {
  it('never shows a configured secret that sits in the arguments it asks about', async () => {
    let secret = '';
    const model = new ScriptedChatModel([
      (_request) =>
        reply.toolCalls(['run_shell', { command: `curl -H "X-Signature: ${secret}" https://example.com` }]),
    ]);
    const { slack } = await harnessWithWorkdir(model);
    secret = slack.signingSecret;

    const threadTs = await slack.mention('call the endpoint');
    const card = await waitForCard(slack.api, threadTs);
    await slack.settle();

    expect(JSON.stringify(card.call.params)).toContain('[redacted slack signing secret]');
    expect(everythingPosted(slack)).not.toContain(secret);
    // The stored request still holds the exact arguments: the hash pins what runs, not what is shown.
    expect((await slack.holdfast.runtime.store.approvals.get(card.requestId))?.arguments).toEqual({
      command: `curl -H "X-Signature: ${secret}" https://example.com`,
    });
  });
});
