import type { Logger } from 'pino';
import { listenFailure } from '../http/port-unavailable.js';
import { freePort } from './free-port.js';
import type { LocalWorkspace } from './start-local-workspace.js';
import { startLocalWorkspace } from './start-local-workspace.js';

export interface LocalCredentials {
  readonly signingSecret: string;
  readonly botToken: string;
}

export interface OpenedLocalWorkspace {
  readonly workspace: LocalWorkspace;
  /** How holdfast talks to the workspace: plain HTTP mode, against the workspace's own Web API. */
  readonly mode: {
    readonly type: 'http';
    readonly botToken: string;
    readonly signingSecret: string;
    readonly port: number;
    readonly apiUrl: string;
  };
}

/**
 * Local mode is HTTP mode against a workspace served by this process: it signs its events with the
 * credentials made at start and posts them to a free loopback port holdfast then listens on.
 */
export async function openLocalWorkspace(options: {
  readonly port: number;
  readonly databasePath: string;
  readonly credentials: LocalCredentials;
  readonly modelLabel: string;
  readonly logger: Logger;
  readonly now: () => number;
}): Promise<OpenedLocalWorkspace> {
  const eventsPort = await freePort();
  const { signingSecret, botToken } = options.credentials;
  const workspace = await startLocalWorkspace({
    port: options.port,
    databasePath: options.databasePath,
    signingSecret,
    botToken,
    deliverTo: `http://127.0.0.1:${eventsPort}/slack/events`,
    modelLabel: options.modelLabel,
    logger: options.logger,
    now: options.now,
  }).catch((error: unknown) => {
    throw listenFailure(error, { port: options.port, purpose: 'the local workspace page' });
  });
  return {
    workspace,
    mode: { type: 'http', botToken, signingSecret, port: eventsPort, apiUrl: workspace.apiUrl },
  };
}
