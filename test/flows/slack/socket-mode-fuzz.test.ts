import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { recordProcessFailures } from '../../support/process-failures.js';
import {
  clickByMallory,
  type Json,
  mentionCallback,
  mentionFieldsRelied,
  pathsIn,
  wrongTypeAtOneField,
} from './hostile-payloads.js';
import { channel, countingShellTool, people, readRows, startSlackHarness, userTs } from './slack-harness.js';
import { startSocketModeServer } from './socket-mode-server.js';

/**
 * Envelope types a Socket Mode server might send, and names the client uses for its own events. `hello`
 * and `disconnect` are left out: they are Slack's to send, and the client rightly obeys them.
 */
const envelopeTypes = fc.oneof(
  fc.constantFrom(
    'events_api',
    'interactive',
    'slash_commands',
    'error',
    'close',
    'connected',
    'disconnected',
    'reconnecting',
    'ws_message',
    'slack_event',
    'app_mention',
  ),
  fc.string({ maxLength: 12 }),
);

function hostileFrames(click: Json, mention: Json): fc.Arbitrary<string> {
  const envelope = (type: string, payload: Json): Json => ({ type, envelope_id: 'fuzz-envelope', payload });
  return fc.oneof(
    fc.json(),
    fc.string({ unit: 'grapheme', maxLength: 200 }),
    fc
      .record({ type: envelopeTypes, envelope_id: fc.option(fc.string()), payload: fc.jsonValue() })
      .map((value) => JSON.stringify(value)),
    wrongTypeAtOneField(envelope('interactive', click), [
      ['type'],
      ['envelope_id'],
      ['payload'],
      ...pathsIn(click).map((path) => ['payload', ...path]),
    ]).map((value) => JSON.stringify(value)),
    wrongTypeAtOneField(envelope('events_api', mention), [
      ['type'],
      ['envelope_id'],
      ['payload'],
      ...mentionFieldsRelied.map((path) => ['payload', ...path]),
    ]).map((value) => JSON.stringify(value)),
  );
}

describe('Socket Mode under a barrage of hostile frames', () => {
  it('stays connected, decides nothing, queues nothing, and still answers a mention afterwards', async () => {
    const { failures } = recordProcessFailures();
    const socketServer = await startSocketModeServer();
    const { tool, runs } = countingShellTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_pending']),
      reply.text('Still here.'),
    ]);
    const slack = await startSlackHarness({
      model,
      tools: [tool],
      beforeStart: socketServer.beforeStart,
    });
    const mentionOverSocket = (text: string) => {
      const ts = userTs();
      socketServer.push({
        type: 'events_api',
        envelope_id: `mention-${ts}`,
        payload: {
          ...(mentionCallback(slack) as object),
          event_id: `Ev${ts.replace('.', '')}`,
          event: {
            type: 'app_mention',
            user: people.alice,
            text: `<@${slack.api.identity.botUserId}> ${text}`,
            ts,
            channel,
          },
        },
      });
      return ts;
    };
    const threadTs = mentionOverSocket('please restart the web tier');
    const cardPost = await slack.api.waitFor(
      'chat.postMessage',
      (call) => call.params.thread_ts === threadTs && String(call.params.text).startsWith('Approval needed'),
    );
    await slack.settle();
    const approvals = () => readRows(slack.databasePath, 'SELECT * FROM approvals ORDER BY request_id');
    const approvalsBefore = approvals();
    expect(approvalsBefore).toHaveLength(1);
    const requestId = String(approvalsBefore[0]?.request_id);
    const click = clickByMallory(slack, {
      requestId,
      channel,
      ts: String(cardPost.response.ts),
      threadTs,
    });

    for (const frame of fc.sample(hostileFrames(click, mentionCallback(slack)), 300))
      socketServer.pushRaw(frame);
    const canaryTs = mentionOverSocket('are you still there?');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Still here.');
    await slack.settle();

    expect(failures).toEqual([]);
    expect(slack.api.succeeded('apps.connections.open')).toHaveLength(1);
    expect(approvals()).toEqual(approvalsBefore);
    expect(runs).toEqual([]);
    expect(readRows(slack.databasePath, 'SELECT trigger_key FROM turns ORDER BY seq')).toEqual([
      { trigger_key: `${channel}:${threadTs}` },
      { trigger_key: `${channel}:${canaryTs}` },
    ]);
    expect(model.calls).toHaveLength(2);
  });
});
