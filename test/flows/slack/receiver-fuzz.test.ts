import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { maxSlackBodyBytes } from '../../../src/slack/receiver/guarded-http-receiver.js';
import { recordProcessFailures } from '../../support/process-failures.js';
import { slackSignature } from '../../support/sign-slack-request.js';
import {
  clickByMallory,
  headerText,
  type Json,
  mentionCallback,
  mentionFieldsRelied,
  pathsIn,
  wrongTypeAtOneField,
} from './hostile-payloads.js';
import {
  channel,
  countingShellTool,
  readRows,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';

type Stamp =
  | { type: 'now' }
  | { type: 'off-by'; seconds: number }
  | { type: 'text'; value: string }
  | { type: 'none' };
type Signature =
  | { type: 'valid' }
  | { type: 'over-other-body' }
  | { type: 'text'; value: string }
  | { type: 'none' };

interface HostileRequest {
  readonly body: string;
  readonly contentType?: string;
  readonly stamp: Stamp;
  readonly signature: Signature;
  readonly headers: Record<string, string>;
}

const asPayloadForm = (value: Json) => `payload=${encodeURIComponent(JSON.stringify(value))}`;

function hostileRequests(click: Json, mention: Json): fc.Arbitrary<HostileRequest> {
  const form = 'application/x-www-form-urlencoded';
  const json = 'application/json';
  const body = fc.oneof(
    fc.record({ body: fc.json(), contentType: fc.constant(json) }),
    fc.record({ body: fc.string({ unit: 'grapheme', maxLength: 200 }), contentType: fc.constant(json) }),
    fc.record({
      body: fc.json().map((text) => `payload=${encodeURIComponent(text)}`),
      contentType: fc.constant(form),
    }),
    fc.record({
      body: fc
        .dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 30 }))
        .map((fields) => new URLSearchParams(fields).toString()),
      contentType: fc.constant(form),
    }),
    // A real approval click from someone who may not approve, with one field of the wrong type.
    fc.record({
      body: wrongTypeAtOneField(click, pathsIn(click)).map(asPayloadForm),
      contentType: fc.constant(form),
    }),
    // A real mention with one field holdfast relies on of the wrong type.
    fc.record({
      body: wrongTypeAtOneField(mention, mentionFieldsRelied).map((value) => JSON.stringify(value)),
      contentType: fc.constant(json),
    }),
    // A body under a content type it was not made for. (The mention stays under the one content type that
    // keeps it from parsing: Bolt reads any other as JSON, and a well-formed signed mention rightly runs.)
    fc.record({
      body: fc.constant(asPayloadForm(click)),
      contentType: fc.oneof(fc.constantFrom(json, 'text/plain', `${form}; charset=utf-8`), headerText),
    }),
    fc.record({ body: fc.constant(JSON.stringify(mention)), contentType: fc.constant(form) }),
    // Past the size limit.
    fc.record({
      body: fc
        .constantFrom(maxSlackBodyBytes + 1, 3 * maxSlackBodyBytes)
        .map((size) => JSON.stringify({ ...(mention as object), padding: 'x'.repeat(size) })),
      contentType: fc.constant(json),
    }),
  );
  const stamp: fc.Arbitrary<Stamp> = fc.oneof(
    { weight: 6, arbitrary: fc.constant({ type: 'now' } as const) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: -1e9, max: 1e9 }).map((seconds) => ({ type: 'off-by', seconds }) as const),
    },
    { weight: 1, arbitrary: headerText.map((value) => ({ type: 'text', value }) as const) },
    { weight: 1, arbitrary: fc.constant({ type: 'none' } as const) },
  );
  const signature: fc.Arbitrary<Signature> = fc.oneof(
    { weight: 6, arbitrary: fc.constant({ type: 'valid' } as const) },
    { weight: 1, arbitrary: fc.constant({ type: 'over-other-body' } as const) },
    { weight: 1, arbitrary: headerText.map((value) => ({ type: 'text', value }) as const) },
    { weight: 1, arbitrary: fc.constant({ type: 'none' } as const) },
  );
  const headers = fc.dictionary(
    fc.constantFrom('x-slack-retry-num', 'x-slack-retry-reason', 'x-forwarded-for', 'x-slack-team'),
    headerText,
  );
  return fc
    .record({ body, stamp, signature, headers })
    .map(({ body: { body: text, contentType }, ...rest }) => ({ body: text, contentType, ...rest }));
}

async function send(slack: SlackHarness, request: HostileRequest): Promise<number> {
  const { stamp, signature } = request;
  const timestamp =
    stamp.type === 'now'
      ? String(slack.nowSeconds())
      : stamp.type === 'off-by'
        ? String(slack.nowSeconds() + stamp.seconds)
        : stamp.type === 'text'
          ? stamp.value
          : undefined;
  const signed = Number(timestamp);
  const headers: Record<string, string> = { ...request.headers };
  if (request.contentType !== undefined) headers['content-type'] = request.contentType;
  if (timestamp !== undefined) headers['x-slack-request-timestamp'] = timestamp;
  if (signature.type === 'valid')
    headers['x-slack-signature'] = slackSignature(slack.signingSecret, signed, request.body);
  if (signature.type === 'over-other-body')
    headers['x-slack-signature'] = slackSignature(slack.signingSecret, signed, `${request.body} `);
  if (signature.type === 'text') headers['x-slack-signature'] = signature.value;
  const response = await fetch(slack.eventsUrl, { method: 'POST', headers, body: request.body });
  await response.arrayBuffer();
  return response.status;
}

describe('the Slack receiver under a barrage of hostile requests', () => {
  it('stays up, decides nothing, queues nothing, and still answers a mention afterwards', async () => {
    const { failures } = recordProcessFailures();
    const { tool, runs } = countingShellTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_pending']),
      reply.text('Still here.'),
    ]);
    const slack = await startSlackHarness({ model, tools: [tool] });
    const threadTs = await slack.mention('please restart the web tier');
    const card = await waitForCard(slack.api, threadTs);
    await slack.settle();

    const approvals = () => readRows(slack.databasePath, 'SELECT * FROM approvals ORDER BY request_id');
    const turns = () => readRows(slack.databasePath, 'SELECT id, trigger_key, status FROM turns ORDER BY id');
    const approvalsBefore = approvals();
    const turnsBefore = turns();
    expect(approvalsBefore).toMatchObject([{ request_id: card.requestId, decision: null }]);

    const click = clickByMallory(slack, card);
    const mention = mentionCallback(slack);

    await fc.assert(
      fc.asyncProperty(hostileRequests(click, mention), async (request) => {
        expect([200, 400, 401, 413]).toContain(await send(slack, request));
        expect(approvals()).toEqual(approvalsBefore);
      }),
      { numRuns: 200 },
    );

    const canaryTs = await slack.mention('are you still there?');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Still here.');
    await slack.settle();

    expect(failures).toEqual([]);
    expect(approvals()).toEqual(approvalsBefore);
    expect(runs).toEqual([]);
    expect(readRows(slack.databasePath, 'SELECT * FROM grants')).toEqual([]);
    const known = new Set(turnsBefore.map((turn) => turn.id));
    expect(turns().filter((turn) => known.has(turn.id))).toEqual(turnsBefore);
    expect(turns().filter((turn) => !known.has(turn.id))).toMatchObject([
      { trigger_key: `${channel}:${canaryTs}`, status: 'completed' },
    ]);
    expect(model.calls).toHaveLength(2);
  });
});
