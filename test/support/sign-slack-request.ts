import { createHmac } from 'node:crypto';

/**
 * Slack's v0 request signature: `v0=` + hex HMAC-SHA256 of `v0:${timestamp}:${body}` with the app's
 * signing secret. holdfast's receiver recomputes it over the raw body and refuses a mismatch or a
 * timestamp more than five minutes from its clock, either way.
 */
export function slackSignature(signingSecret: string, timestampSeconds: number, body: string): string {
  const digest = createHmac('sha256', signingSecret).update(`v0:${timestampSeconds}:${body}`).digest('hex');
  return `v0=${digest}`;
}

export interface SignedRequestOptions {
  /** Seconds since the epoch; defaults to the wall clock (the Slack harness stamps with the app's clock). */
  readonly timestampSeconds?: number;
  /** Sent instead of the correct signature (for refusal tests). */
  readonly signature?: string;
  readonly headers?: Record<string, string>;
}

export type SlackRequestBody =
  /** An Events API callback or `url_verification`, sent as JSON. */
  | { readonly json: unknown }
  /** An interactivity payload, sent the way Slack does: `payload=<url-encoded JSON>`. */
  | { readonly payload: unknown }
  /** A slash command or any other form body, as fields. */
  | { readonly form: Record<string, string> }
  /** Bytes exactly as given (fixture files), with their content type. */
  | { readonly raw: string; readonly contentType: string };

export function encodeSlackBody(body: SlackRequestBody): { text: string; contentType: string } {
  if ('json' in body) return { text: JSON.stringify(body.json), contentType: 'application/json' };
  if ('payload' in body) {
    return {
      text: new URLSearchParams({ payload: JSON.stringify(body.payload) }).toString(),
      contentType: 'application/x-www-form-urlencoded',
    };
  }
  if ('form' in body) {
    return {
      text: new URLSearchParams(body.form).toString(),
      contentType: 'application/x-www-form-urlencoded',
    };
  }
  return { text: body.raw, contentType: body.contentType };
}

/** POSTs a correctly signed (unless told otherwise) request to a Bolt HTTP receiver. */
export async function postSignedToSlackApp(
  url: string,
  signingSecret: string,
  body: SlackRequestBody,
  options: SignedRequestOptions = {},
): Promise<{ status: number; text: string }> {
  const { text, contentType } = encodeSlackBody(body);
  const timestamp = options.timestampSeconds ?? Math.floor(Date.now() / 1000);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      // A fresh connection per request: a kept-alive socket that the app's server closes for idleness just
      // as the next request goes out fails with "other side closed", a race of this client, not of the app.
      connection: 'close',
      'content-type': contentType,
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': options.signature ?? slackSignature(signingSecret, timestamp, text),
      ...options.headers,
    },
    body: text,
  });
  return { status: response.status, text: await response.text() };
}
