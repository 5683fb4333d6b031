import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { ResolvedAddress } from './http-destination.js';

export interface PinnedRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The address that was checked; the socket connects here and nowhere else. */
  readonly address: ResolvedAddress;
  readonly signal: AbortSignal;
}

/**
 * One HTTP request (no redirects followed) whose connection goes to the address already checked. The
 * `lookup` hook answers the socket's own lookup with that address, so a DNS answer that changes between
 * the check and the connection changes nothing; TLS still verifies the certificate against the host name.
 */
export function sendPinnedRequest(request: PinnedRequest): Promise<IncomingMessage> {
  const { address, family } = request.address;
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const client = request.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = client.request(request.url, {
      method: request.method,
      headers: request.headers,
      lookup,
      signal: request.signal,
    });
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
    outgoing.end(request.body);
  });
}

/** The body as text, decoded as the server encoded it and cut at `maxBytes` of decoded text. */
export async function readCappedBody(response: IncomingMessage, maxBytes: number): Promise<string> {
  const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  // pipeline, not pipe: an aborted response must end the decoder with an error, not leave it waiting.
  const decoded: Readable = decoder ? pipeline(response, decoder, () => {}) : response;
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of decoded as AsyncIterable<Buffer>) {
      const room = maxBytes - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size += room;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    response.destroy();
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return truncated ? `${text}\n[response truncated at ${maxBytes} bytes]` : text;
}
