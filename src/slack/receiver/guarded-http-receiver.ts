import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ListenOptions } from 'node:net';
import {
  type App,
  type CustomRoute,
  HTTPModuleFunctions,
  HTTPReceiver,
  isRawBodyError,
  type Receiver,
} from '@slack/bolt';
import type { Logger as SlackLogger } from '@slack/logger';
import type { Logger } from 'pino';
import { readSlackRequest } from './check-slack-request.js';

/**
 * Slack's own payloads stay far below this (a 50-block message with its card in a `block_actions`
 * payload is tens of kilobytes); Bolt's default of 4 MB only gives a sender more to make us parse.
 */
export const maxSlackBodyBytes = 1024 * 1024;

const slackEventsPath = '/slack/events';

export interface GuardedHttpReceiverOptions {
  readonly signingSecret: string;
  /** The clock request timestamps are judged by. */
  readonly now: () => number;
  /** Where refusals are logged. */
  readonly logger: Logger;
  /** Bolt's own receiver logs through this. */
  readonly boltLogger: SlackLogger;
  readonly customRoutes?: CustomRoute[];
  readonly maxBodyBytes?: number;
}

/**
 * Bolt's HTTP receiver behind a guard. A request to the events endpoint is buffered once (Bolt reuses the
 * buffer: it skips reading a request that already carries `rawBody`), checked by `checkSlackRequest`,
 * and only then handed to Bolt's `requestListener`, which verifies the signature again and dispatches.
 * Everything else (`/health`, unknown paths) goes straight to Bolt. No request can reject a promise that
 * nobody awaits: that would end the process.
 */
export class GuardedHttpReceiver implements Receiver {
  readonly #bolt: HTTPReceiver;
  readonly #options: GuardedHttpReceiverOptions;
  readonly #maxBodyBytes: number;
  #server: Server | undefined;

  constructor(options: GuardedHttpReceiverOptions) {
    this.#options = options;
    this.#maxBodyBytes = options.maxBodyBytes ?? maxSlackBodyBytes;
    this.#bolt = new HTTPReceiver({
      signingSecret: options.signingSecret,
      endpoints: [slackEventsPath],
      logger: options.boltLogger,
      customRoutes: options.customRoutes,
      bodyLimit: this.#maxBodyBytes,
    });
  }

  init(app: App): void {
    this.#bolt.init(app);
  }

  /** A port, or a port and a host. */
  start(where: number | ListenOptions): Promise<Server> {
    if (this.#server) return Promise.reject(new Error('the Slack receiver is already listening'));
    const server = createServer((request, response) => {
      this.#serve(request, response).catch((error: unknown) => {
        this.#options.logger.error({ err: error }, 'failed to answer a Slack request');
        if (!response.headersSent) respond(response, 500);
      });
    });
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(typeof where === 'number' ? { port: where } : where, () => {
        server.off('error', reject);
        resolve(server);
      });
    });
  }

  stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return Promise.resolve();
    return new Promise((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
    });
  }

  async #serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (isEventsRequest(request)) {
      const verdict = await readEventsRequest(request, {
        signingSecret: this.#options.signingSecret,
        nowMs: this.#options.now(),
        maxBodyBytes: this.#maxBodyBytes,
      });
      if (verdict.type === 'refused')
        return refuseEventsRequest(this.#options.logger, request, response, verdict);
    }
    try {
      this.#bolt.requestListener(request, response);
    } catch (error) {
      // What Bolt's own server does with a request it cannot route: 404 for an unknown path, else 500.
      HTTPModuleFunctions.defaultDispatchErrorHandler({
        error: error as Error,
        logger: this.#options.boltLogger,
        request,
        response,
      });
    }
  }
}

export type EventsRequestVerdict =
  /** `body`: as Bolt will read it (the JSON, or the form's `payload` or fields). */
  | { readonly type: 'accepted'; readonly rawBody: Buffer; readonly body: unknown }
  | { readonly type: 'refused'; readonly status: 400 | 401 | 413; readonly reason: string };

/**
 * Buffers a request to the events endpoint once (Bolt reuses the buffer: it skips reading a request that
 * already carries `rawBody`) and checks it with `checkSlackRequest`.
 */
async function readEventsRequest(
  request: IncomingMessage,
  options: { readonly signingSecret: string; readonly nowMs: number; readonly maxBodyBytes: number },
): Promise<EventsRequestVerdict> {
  let rawBody: Buffer;
  try {
    rawBody = (await HTTPModuleFunctions.bufferIncomingMessage(request, options.maxBodyBytes)).rawBody;
  } catch (error) {
    if (isRawBodyError(error) && (error.type === 'entity.too.large' || error.statusCode === 413))
      return { type: 'refused', status: 413, reason: `the body is over ${options.maxBodyBytes} bytes` };
    return { type: 'refused', status: 400, reason: 'the body could not be read' };
  }
  const verdict = readSlackRequest({ headers: request.headers, rawBody }, options);
  return verdict.type === 'accepted' ? { type: 'accepted', rawBody, body: verdict.body } : verdict;
}

/** Answers a refused request, and says why in the log (never in the answer). */
function refuseEventsRequest(
  logger: { warn(fields: Record<string, unknown>, msg: string): void },
  request: IncomingMessage,
  response: ServerResponse,
  verdict: Extract<EventsRequestVerdict, { type: 'refused' }>,
): void {
  logger.warn(
    {
      status: verdict.status,
      reason: verdict.reason,
      contentType: request.headers['content-type'],
      contentLength: request.headers['content-length'],
    },
    'refused a Slack request',
  );
  // A body left unread (over the limit) would hold the connection open: close it instead.
  if (!request.complete) response.setHeader('connection', 'close');
  respond(response, verdict.status);
}

function isEventsRequest(request: IncomingMessage): boolean {
  if (request.method?.toUpperCase() !== 'POST') return false;
  try {
    // The same reading of the path as Bolt's router, so both agree on what the events endpoint is.
    return new URL(request.url ?? '/', 'http://localhost').pathname === slackEventsPath;
  } catch {
    return false;
  }
}

export function respond(response: ServerResponse, status: number): void {
  response.writeHead(status);
  response.end();
}
