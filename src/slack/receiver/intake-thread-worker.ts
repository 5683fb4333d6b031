import {
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { describeError } from '../../errors.js';
import { createRedactor } from '../../secrets/index.js';
import { serveBehindProxies } from '../../startup/serve-behind-proxies.js';
import { sqliteCode } from '../../store/open-database.js';
import { prepareConversationKnown } from '../../store/sqlite/sqlite-conversations.js';
import { prepareInboundKeep } from '../../store/sqlite/sqlite-inbound.js';
import { WalSync } from '../../store/sqlite/wal-sync.js';
import type { NewInboundMessage } from '../../store/store.js';
import { readMessageDelivery, screenMessage } from '../screen-message.js';
import { isEventsRequest, readEventsRequest, refuseEventsRequest, respond } from './guarded-http-receiver.js';
import type { IntakeThreadCommand, IntakeThreadData, IntakeThreadReport } from './intake-thread.js';

/**
 * The intake thread's side (see `IntakeThread`): it owns the public port. A message event it can decide
 * alone is checked, kept on its own connection and acknowledged here; every other request goes on, as
 * received, to the main thread's Bolt receiver on loopback.
 */
const data = workerData as IntakeThreadData;
const port = parentPort;
if (!port) throw new Error('the intake thread runs as a worker');
const report = (message: IntakeThreadReport) => port.postMessage(message);
const log = (level: 'debug' | 'warn' | 'error', fields: Record<string, unknown>, msg: string) =>
  report({ type: 'log', level, fields, msg });
const logger = { warn: (fields: Record<string, unknown>, msg: string) => log('warn', fields, msg) };

// No busy handler: SQLite's sleeps 1, 2, 5, 10… ms between tries, and the main thread's group commits
// hold the lock for a few milliseconds at a time, so an acknowledgement would wait out those steps.
// `keep` below tries again every fifth of a millisecond instead (a worker may block).
const db = new Database(data.databaseFile, { fileMustExist: true, timeout: 0 });
// Checkpoints are the checkpointer's (see WalCheckpointer): one here would hold up an acknowledgement.
db.pragma('wal_autocheckpoint = 0');
const walSync =
  data.synchronous === 'FULL'
    ? new WalSync(data.databaseFile, { sharedFailure: data.walSyncFailure })
    : undefined;
db.pragma(`synchronous = ${walSync ? 'NORMAL' : data.synchronous}`);
const insert = prepareInboundKeep(db);
const conversationKnown = prepareConversationKnown(db);
const pause = new Int32Array(new SharedArrayBuffer(4));

function keep(message: NewInboundMessage, at: number): boolean {
  const deadline = Date.now() + data.busyTimeoutMs;
  for (;;) {
    try {
      return insert(message, at);
    } catch (error) {
      if (!sqliteCode(error)?.startsWith('SQLITE_BUSY') || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, 0.2);
    }
  }
}
const { redact } = createRedactor({ secrets: data.secrets });
const forwardAgent = new HttpAgent({ keepAlive: true });

const server = createServer((request, response) => {
  serve(request, response).catch((error: unknown) => {
    log('error', { err: errorFields(error) }, 'failed to answer a Slack request');
    if (!response.headersSent) respond(response, 500);
  });
});
serveBehindProxies(server);
server.once('error', (error: NodeJS.ErrnoException) =>
  report({ type: 'failed', message: error.message, code: error.code, syscall: error.syscall }),
);
server.listen(data.port, data.host, () => {
  const address = server.address();
  report({ type: 'listening', port: typeof address === 'object' && address ? address.port : data.port });
});

port.on('message', (command: IntakeThreadCommand) => {
  if (command.type === 'ping') return report({ type: 'pong', id: command.id });
  // Kept connections would hold `close` open until their keep-alive ends.
  server.close(() => {
    forwardAgent.destroy();
    walSync?.close();
    db.close();
    port.close();
  });
  server.closeIdleConnections();
});

async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (!isEventsRequest(request)) return forward(request, response);
  const verdict = await readEventsRequest(request, {
    signingSecret: data.signingSecret,
    nowMs: Date.now(),
    maxBodyBytes: data.maxBodyBytes,
  });
  if (verdict.type === 'refused') return refuseEventsRequest(logger, request, response, verdict);
  const { rawBody } = verdict;
  const message = readMessageEvent(request, verdict.body);
  if (!message) return forward(request, response, rawBody);
  const screening = screenMessage(message.event, message.envelope, { botUserId: data.botUserId, redact });
  const ignored =
    screening.type === 'ignored' ||
    (screening.type === 'if-thread-known' && !conversationKnown(screening.conversationId));
  if (ignored) {
    if (data.logHandled) log('debug', { result: 'ignored', ts: message.event.ts }, 'message event handled');
    return respond(response, 200);
  }
  // "new" in a DM is answered with a reaction, a call to Slack: the main thread's.
  if (screening.type === 'fresh-start') return forward(request, response, rawBody);
  let kept: boolean;
  const receivedAt = Date.now();
  try {
    // After a failed sync nothing more is written, by either thread (see WalSync).
    const failure = walSync?.failure;
    if (failure) throw failure;
    kept = keep(screening.message, receivedAt);
    // The acknowledgement waits for the disk, as the main thread's does (see WalSync).
    await walSync?.durable();
  } catch (error) {
    // Slack delivers again: nothing is lost while the database cannot take it.
    log('error', { err: errorFields(error) }, 'could not keep a message event');
    return respond(response, 500);
  }
  report({ type: 'kept', message: { ...screening.message, receivedAt }, kept });
  respond(response, 200);
}

/** A verified Events API delivery of a message, when the body is one; anything else is forwarded. */
function readMessageEvent(request: IncomingMessage, body: unknown) {
  if (request.headers['content-type']?.startsWith('application/json') !== true) return undefined;
  if (typeof body !== 'object' || body === null || (body as { type?: unknown }).type !== 'event_callback')
    return undefined;
  const delivery = readMessageDelivery((body as { event?: unknown }).event, body, data.teamId);
  // A malformed one is the main thread's to log and answer, as before.
  return delivery.type === 'message' ? delivery : undefined;
}

/** Passes a request to the main thread's receiver, which checks it again, and its answer back. */
function forward(request: IncomingMessage, response: ServerResponse, rawBody?: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const headers = { ...request.headers };
    if (rawBody) {
      delete headers['transfer-encoding'];
      headers['content-length'] = String(rawBody.length);
    }
    const onward = httpRequest(
      {
        host: '127.0.0.1',
        port: data.forwardPort,
        method: request.method,
        path: request.url,
        headers,
        agent: forwardAgent,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
        answer.once('end', resolve);
        answer.once('error', () => resolve());
      },
    );
    onward.once('error', (error) => {
      log('warn', { err: errorFields(error) }, 'the main thread did not answer a forwarded request');
      if (!response.headersSent) respond(response, 502);
      else response.destroy();
      resolve();
    });
    if (rawBody) onward.end(rawBody);
    else request.pipe(onward);
  });
}

/** An error as plain data: a log line crosses to the main thread by structured clone. */
function errorFields(error: unknown): { message: string; code?: string } {
  const code = (error as { code?: unknown } | undefined)?.code;
  return { message: describeError(error), code: typeof code === 'string' ? code : undefined };
}
