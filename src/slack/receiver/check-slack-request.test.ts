import { describe, expect, it } from 'vitest';
import { slackSignature } from '../../../test/support/sign-slack-request.js';
import { checkSlackRequest } from './check-slack-request.js';

const secret = 'a'.repeat(32);
const nowMs = Date.UTC(2025, 0, 6, 9, 0, 0);
const nowSeconds = nowMs / 1000;

const json = 'application/json';
const form = 'application/x-www-form-urlencoded';
const mention = JSON.stringify({
  type: 'event_callback',
  team_id: 'T0HOLDFAST',
  event: { type: 'app_mention', user: 'U0ALICE', text: 'hi', ts: '1.000001', channel: 'C0OPS' },
});

function check(
  body: string,
  options: { contentType?: string; timestamp?: number | string; signature?: string } = {},
) {
  const timestamp = options.timestamp ?? nowSeconds;
  return checkSlackRequest(
    {
      headers: {
        'content-type': options.contentType ?? json,
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': options.signature ?? slackSignature(secret, Number(timestamp), body),
      },
      rawBody: Buffer.from(body),
    },
    { signingSecret: secret, nowMs },
  );
}

describe('checkSlackRequest, on the timestamp', () => {
  it.each([0, 300, -300])('accepts a request %i s from now', (offset) => {
    expect(check(mention, { timestamp: nowSeconds + offset })).toEqual({ type: 'accepted' });
  });

  it.each([301, -301, 6 * 60, -6 * 60])('refuses a request %i s from now', (offset) => {
    expect(check(mention, { timestamp: nowSeconds + offset })).toMatchObject({
      type: 'refused',
      status: 401,
    });
  });

  it.each(['', 'soon', '1e9', ` ${nowSeconds}`, '-5', `${nowSeconds}.5`])(
    'refuses a timestamp header of %j',
    (timestamp) => {
      const result = checkSlackRequest(
        {
          headers: {
            'content-type': json,
            'x-slack-request-timestamp': timestamp,
            'x-slack-signature': 'v0=00',
          },
          rawBody: Buffer.from(mention),
        },
        { signingSecret: secret, nowMs },
      );
      expect(result).toEqual({
        type: 'refused',
        status: 401,
        reason: 'missing or malformed x-slack-request-timestamp',
      });
    },
  );
});

describe('checkSlackRequest, on the signature', () => {
  it('refuses a signature made with another secret', () => {
    const forged = slackSignature('b'.repeat(32), nowSeconds, mention);
    expect(check(mention, { signature: forged })).toEqual({
      type: 'refused',
      status: 401,
      reason: 'signature does not match',
    });
  });

  it('refuses a request with no signature', () => {
    const result = checkSlackRequest(
      {
        headers: { 'content-type': json, 'x-slack-request-timestamp': String(nowSeconds) },
        rawBody: Buffer.from(mention),
      },
      { signingSecret: secret, nowMs },
    );
    expect(result).toMatchObject({ type: 'refused', status: 401 });
  });

  it('refuses a body that is not JSON only once the signature is known good', () => {
    expect(check('{', { signature: 'v0=00' })).toMatchObject({ status: 401 });
    expect(check('{')).toMatchObject({ status: 400, reason: 'the body is not JSON' });
  });

  it("lets Slack's unsigned ssl_check through, as Bolt does", () => {
    expect(
      check('ssl_check=1&token=x', { contentType: form, signature: 'v0=00', timestamp: 'none' }),
    ).toEqual({
      type: 'accepted',
    });
  });
});

describe('checkSlackRequest, on the body', () => {
  const payload = (value: unknown) => `payload=${encodeURIComponent(JSON.stringify(value))}`;
  const click = {
    type: 'block_actions',
    user: { id: 'U0BOB' },
    team: { id: 'T0HOLDFAST' },
    actions: [{ action_id: 'holdfast.approval.allow', value: 'r1' }],
  };

  it.each([
    ['an Events API callback', mention, json],
    ['a URL verification', JSON.stringify({ type: 'url_verification', challenge: 'c' }), json],
    ['a block_actions payload', payload(click), form],
    ['a block_actions payload from an org-wide install (team null)', payload({ ...click, team: null }), form],
    ['a slash command', 'command=%2Fapprovals&text=all&user_id=U0BOB&team_id=T0&channel_id=C0OPS', form],
  ])('accepts %s', (_name, body, contentType) => {
    expect(check(body, { contentType })).toEqual({ type: 'accepted' });
  });

  it.each([
    ['null', 'null', json],
    ['a number', '42', json],
    ['an array', '[]', json],
    ['a string', '"event_callback"', json],
    ['payload=null', 'payload=null', form],
    ['a payload given twice', `${payload(click)}&${payload(click)}`, form],
    ['a form field given twice', 'command=%2Fapprovals&command=%2Fother', form],
    ['an object Bolt cannot route', '{"hello":"world"}', json],
    ['an event that is not an object', '{"type":"event_callback","event":"app_mention"}', json],
    ['an event without a type', '{"type":"event_callback","event":{}}', json],
    [
      'authorizations that are not objects',
      JSON.stringify({ event: { type: 'message' }, authorizations: [null] }),
      json,
    ],
    ['a command that is not a string', '{"command":5}', json],
    ['block actions without a user', payload({ ...click, user: undefined }), form],
    ['block actions with no actions', payload({ ...click, actions: [] }), form],
    ['an action id that is not a string', payload({ ...click, actions: [{ action_id: 1 }] }), form],
    ['a team that is not an object', payload({ ...click, team: 'T0HOLDFAST' }), form],
    ['a view submission without a view', payload({ type: 'view_submission', user: { id: 'U0BOB' } }), form],
  ])('refuses %s with 400', (_name, body, contentType) => {
    expect(check(body, { contentType })).toMatchObject({ type: 'refused', status: 400 });
  });
});
