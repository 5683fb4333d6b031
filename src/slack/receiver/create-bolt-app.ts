import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { App, type Logger as BoltLogger, SocketModeReceiver } from '@slack/bolt';
import type { Logger } from 'pino';
import type { SlackMode } from '../../config.js';
import { listenFailure } from '../../http/port-unavailable.js';
import { serveBehindProxies } from '../../http/serve-behind-proxies.js';
import { deferEventAcks } from './defer-event-acks.js';
import { guardSocketMode } from './guard-socket-mode.js';
import { GuardedHttpReceiver } from './guarded-http-receiver.js';

export type ConnectedSlackMode = Exclude<SlackMode, { type: 'local' }>;

export interface BoltAppOptions {
  readonly mode: ConnectedSlackMode;
  readonly logger: Logger;
  readonly boltLogger: BoltLogger;
  readonly now: () => number;
  /** Served beside the events endpoint in HTTP mode (`/health`, `/ready`, `/metrics`); GET only. */
  readonly routes?: Readonly<Record<string, (request: IncomingMessage, response: ServerResponse) => void>>;
}

/**
 * The Bolt app for either transport. Both receivers are guarded (malformed payloads answered, never
 * thrown) and acknowledge an event only once it is saved, so Slack redelivers what a full disk lost.
 * Bolt's conversation store is off: the database holds every conversation, and the in-memory store
 * would only add a lookup (and a thrown "not found") to every event.
 */
export function createBoltApp({ mode, logger, boltLogger, now, routes = healthOnly }: BoltAppOptions): App {
  const clientOptions = mode.apiUrl ? { slackApiUrl: mode.apiUrl } : undefined;
  const receiverLogger = logger.child({ component: 'slack-receiver' });
  if (mode.type === 'socket')
    return new App({
      token: mode.botToken,
      socketMode: true,
      logger: boltLogger,
      clientOptions,
      convoStore: false,
      receiver: deferEventAcks(
        guardSocketMode(
          new SocketModeReceiver({
            appToken: mode.appToken,
            logger: boltLogger,
            // A copy: the Socket Mode client writes its own retry settings into the options it gets.
            installerOptions: { clientOptions: { ...clientOptions } },
          }),
          { logger: receiverLogger },
        ),
      ),
    });
  return new App({
    token: mode.botToken,
    logger: boltLogger,
    clientOptions,
    convoStore: false,
    receiver: deferEventAcks(
      new GuardedHttpReceiver({
        signingSecret: mode.signingSecret,
        now,
        logger: receiverLogger,
        boltLogger,
        customRoutes: Object.entries(routes).map(([path, handler]) => ({ path, method: ['GET'], handler })),
      }),
    ),
  });
}

const healthOnly: NonNullable<BoltAppOptions['routes']> = {
  '/health': (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ok: true }));
  },
};

export interface StartedBoltApp {
  /** HTTP mode: where Slack sends events. */
  readonly eventsUrl?: string;
  /** Stops taking requests. */
  stop(): Promise<void>;
}

/** Connects (Socket Mode) or listens (HTTP). */
export async function startBoltApp(app: App, mode: ConnectedSlackMode): Promise<StartedBoltApp> {
  const stopApp = () => app.stop().then(() => undefined);
  if (mode.type === 'socket') {
    // A refused app-level token is worded by start-up, as its own check words it.
    await app.start();
    return { stop: stopApp };
  }
  const server = (await app.start({ port: mode.port }).catch((error: unknown) => {
    throw listenFailure(error, { port: mode.port, purpose: 'Slack events' });
  })) as Server;
  serveBehindProxies(server);
  return { eventsUrl: eventsUrlOf(portOf(server, mode.port)), stop: stopApp };
}

function portOf(server: Server, fallback: number): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : fallback;
}

function eventsUrlOf(port: number): string {
  return `http://127.0.0.1:${port}/slack/events`;
}
