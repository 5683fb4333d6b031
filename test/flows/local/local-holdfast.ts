import path from 'node:path';
import { onTestFinished } from 'vitest';
import type { ChatModel } from '../../../src/agent/chat-model.js';
import { loadConfig } from '../../../src/config.js';
import { startHoldfast } from '../../../src/main.js';
import { tempDir } from '../../support/temp-dir.js';
import { createTestLogger } from '../../support/test-logger.js';
import { type SignedInTab, signIn } from './local-http.js';

/** holdfast started in this process in local mode, and a browser tab signed in with the URL it printed. */
export interface LocalHoldfast {
  /** The URL holdfast printed, token included. */
  readonly url: URL;
  readonly tab: SignedInTab;
  /** A route on the workspace's server, for requests a signed-in tab would not send. */
  at(route: string): URL;
}

/**
 * Starts holdfast with no Slack token and no OpenAI key, on a free port and a fresh database, stopped
 * when the test finishes. Call it inside a test.
 */
export async function startLocalHoldfast(
  dirPrefix = 'holdfast-local-',
  options: {
    /** More variables (an MCP config, a policy). */
    readonly env?: Record<string, string>;
    /** A model of the test's own instead of the demo model. */
    readonly model?: ChatModel;
  } = {},
): Promise<LocalHoldfast> {
  const dir = tempDir(dirPrefix);
  const config = loadConfig(
    {
      PATH: process.env.PATH ?? '',
      HOLDFAST_DB: path.join(dir.path, 'holdfast.db'),
      HOLDFAST_WORKDIR: path.join(dir.path, 'work'),
      ...options.env,
    },
    dir.path,
  );
  const holdfast = await startHoldfast(config, {
    logger: createTestLogger().logger,
    localWorkspace: { port: 0 },
    ...(options.model ? { model: options.model } : {}),
  });
  onTestFinished(() => holdfast.stop());
  if (!holdfast.localUrl) throw new Error('holdfast did not start its local workspace');
  const url = new URL(holdfast.localUrl);
  const tab = await signIn(holdfast.localUrl);
  return { url, tab, at: (route) => new URL(route, url) };
}
