import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GuardVerdict } from './request-guard.js';

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

export function sendRefusal(
  response: ServerResponse,
  verdict: Extract<GuardVerdict, { type: 'refuse' }>,
): void {
  sendJson(response, verdict.status, { ok: false, error: verdict.error, message: verdict.message });
}
