import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import { verifySlackRequest } from '@slack/bolt';
import { checkSlackRequestBody } from './slack-request-body.js';

/** Slack's verification guide: refuse a request whose timestamp is more than five minutes from now. */
const requestTimestampToleranceSeconds = 5 * 60;

export type SlackRequestVerdict =
  | { readonly type: 'accepted' }
  | { readonly type: 'refused'; readonly status: 400 | 401; readonly reason: string };

type SlackRequestRefusal = Extract<SlackRequestVerdict, { type: 'refused' }>;

export interface SlackRequestToCheck {
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
}

const formContentType = 'application/x-www-form-urlencoded';

/**
 * Decides, before Bolt sees it, whether a buffered request to the events endpoint may go on. In order:
 * the timestamp lies within five minutes of `nowMs` on either side (Bolt only refuses old ones, and by
 * the wall clock); the signature matches (Bolt's own function, so the rule is Slack's); and the body is
 * a JSON object Bolt can route. Bolt then verifies the signature again and dispatches as usual.
 */
export function checkSlackRequest(
  request: SlackRequestToCheck,
  options: { readonly signingSecret: string; readonly nowMs: number },
): SlackRequestVerdict {
  const verdict = readSlackRequest(request, options);
  return verdict.type === 'accepted' ? { type: 'accepted' } : verdict;
}

/**
 * `checkSlackRequest`, keeping the body it parsed (the form's fields or `payload`, or the JSON), so a
 * caller that reads the body next does not parse it again.
 */
export function readSlackRequest(
  request: SlackRequestToCheck,
  options: { readonly signingSecret: string; readonly nowMs: number },
):
  | Exclude<SlackRequestVerdict, { type: 'accepted' }>
  | { readonly type: 'accepted'; readonly body: unknown } {
  const text = request.rawBody.toString();
  const contentType = request.headers['content-type'];
  const form = contentType === formContentType ? parseQueryString(text) : undefined;
  // Bolt answers `ssl_check=1` itself, unsigned, after stripping everything else from the body: nothing
  // in it reaches a listener, so it goes through as Slack's guide and Bolt expect.
  if (form?.ssl_check === '1') return { type: 'accepted', body: { ...form } };

  const timestamp = singleHeader(request.headers['x-slack-request-timestamp']);
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp))
    return refused(401, 'missing or malformed x-slack-request-timestamp');
  const skewSeconds = Math.abs(Math.floor(options.nowMs / 1000) - Number(timestamp));
  if (skewSeconds > requestTimestampToleranceSeconds)
    return refused(401, `timestamp is ${skewSeconds} s from now, more than five minutes`);

  const signature = singleHeader(request.headers['x-slack-signature']);
  if (signature === undefined) return refused(401, 'missing x-slack-signature');
  try {
    verifySlackRequest({
      signingSecret: options.signingSecret,
      body: text,
      headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': Number(timestamp) },
      nowMilliseconds: options.nowMs,
    });
  } catch {
    return refused(401, 'signature does not match');
  }

  const body = form ? formBody(form) : parseJson(text);
  if (body.type === 'unparsable') return refused(400, body.reason);
  const check = checkSlackRequestBody(body.value);
  return check.type === 'routable' ? { type: 'accepted', body: body.value } : refused(400, check.reason);
}

type ParsedBody = { type: 'parsed'; value: unknown } | { type: 'unparsable'; reason: string };

/** As Bolt reads a form: the JSON in `payload` when there is one, else the fields themselves. */
function formBody(fields: ReturnType<typeof parseQueryString>): ParsedBody {
  if (!('payload' in fields)) {
    const repeated = Object.entries(fields).find(([, value]) => typeof value !== 'string');
    return repeated
      ? { type: 'unparsable', reason: `form field ${repeated[0]} is given more than once` }
      : { type: 'parsed', value: { ...fields } };
  }
  const { payload } = fields;
  return typeof payload === 'string'
    ? parseJson(payload)
    : { type: 'unparsable', reason: 'form field payload is given more than once' };
}

function parseJson(text: string): ParsedBody {
  try {
    return { type: 'parsed', value: JSON.parse(text) as unknown };
  } catch {
    return { type: 'unparsable', reason: 'the body is not JSON' };
  }
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function refused(status: 400 | 401, reason: string): SlackRequestRefusal {
  return { type: 'refused', status, reason };
}
