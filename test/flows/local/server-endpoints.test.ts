import { once } from 'node:events';
import { rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebClient } from '@slack/web-api';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readBody } from '../../../src/local/http-io.js';
import { startLocalWorkspace } from '../../../src/local/start-local-workspace.js';
import { type TempDir, tempDir } from '../../support/temp-dir.js';
import { createTestLogger } from '../../support/test-logger.js';
import { send, signIn } from './local-http.js';

const botToken = 'xoxb-local-endpoints-test';
const signingSecret = 's'.repeat(32);

/** Stands in for holdfast's receiver: acknowledges and keeps what the workspace delivered. */
async function startReceiver() {
  const bodies: string[] = [];
  const server = createServer(async (request, response) => {
    bodies.push(await readBody(request));
    response.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/slack/events`, bodies };
}

async function startWorkspace(
  dir: TempDir,
  { deliverTo = 'http://127.0.0.1:9/slack/events', port = 0 }: { deliverTo?: string; port?: number } = {},
) {
  const workspace = await startLocalWorkspace({
    port,
    databasePath: dir.file('local-workspace.db'),
    signingSecret,
    botToken,
    deliverTo,
    modelLabel: 'test',
    logger: createTestLogger().logger,
    now: Date.now,
  });
  let open = true;
  onTestFinished(async () => {
    if (open) await workspace.close();
  });
  return {
    workspace,
    at: (route: string) => new URL(route, workspace.url),
    async close() {
      open = false;
      await workspace.close();
    },
  };
}

describe("the local workspace's server-to-server endpoints", () => {
  it("answers holdfast's WebClient but refuses a browser, even one holding the bot token", async () => {
    const { workspace, at } = await startWorkspace(tempDir('holdfast-endpoints-'));
    const tab = await signIn(workspace.url);
    const client = new WebClient(botToken, { slackApiUrl: workspace.apiUrl, retryConfig: { retries: 0 } });
    expect((await client.chat.postMessage({ channel: 'C0OPS', text: 'from holdfast' })).ok).toBe(true);

    const fromPage = await send(at('/api/chat.postMessage'), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${botToken}`,
        'content-type': 'application/json',
        origin: tab.origin,
        'sec-fetch-site': 'same-origin',
        cookie: tab.cookie,
      },
      body: JSON.stringify({ channel: 'C0OPS', text: 'from a browser' }),
    });
    expect(fromPage.status).toBe(403);
    expect(JSON.parse(fromPage.text)).toMatchObject({ ok: false, error: 'browser_refused' });

    const state = await tab.state('U0ALICE');
    expect(state.messages.map((message) => message.text)).toEqual(['from holdfast']);
    // Nothing the page can read carries the bot token or the signing secret.
    for (const route of ['/', '/state?as=U0ALICE']) {
      const reply = await tab.get(route);
      expect(reply.text).not.toContain(botToken);
      expect(reply.text).not.toContain(signingSecret);
    }
  });

  it("takes a response URL's post from holdfast's server only, with the key the click carried", async () => {
    const receiver = await startReceiver();
    const { workspace, at } = await startWorkspace(tempDir('holdfast-endpoints-'), {
      deliverTo: receiver.url,
    });
    const tab = await signIn(workspace.url);
    const fakeCard = JSON.stringify({ response_type: 'in_channel', text: 'Allowed by @bob' });

    const crossSite = await send(at('/respond/C0OPS/U0ALICE'), {
      method: 'POST',
      headers: {
        origin: 'https://attacker.example',
        'sec-fetch-site': 'cross-site',
        'content-type': 'text/plain;charset=UTF-8',
      },
      body: fakeCard,
    });
    expect(crossSite.status).toBe(403);
    const guessed = await send(at('/respond/guessed/C0OPS/U0ALICE'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: fakeCard,
    });
    expect(guessed.status).toBe(403);
    expect((await tab.state('U0ALICE')).messages).toEqual([]);

    // A click hands holdfast a response URL; posting to it, as Bolt's respond() does, works.
    await tab.post('/ui/click', { user: 'U0ALICE', channel: 'C0OPS', action_id: 'anything' });
    const payload = JSON.parse(new URLSearchParams(receiver.bodies[0]).get('payload') ?? '{}') as {
      response_url: string;
    };
    const responseUrl = new URL(payload.response_url);
    expect(responseUrl.host).toBe(new URL(workspace.apiUrl).host);
    const answered = await send(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'only for alice' }),
    });
    expect(answered.status).toBe(200);
    expect((await tab.state('U0ALICE')).ephemerals.map((ephemeral) => ephemeral.text)).toEqual([
      'only for alice',
    ]);
  });

  it('keeps its secret owner-only across a restart, and signs tabs out when the secret file is gone', async () => {
    const dir = tempDir('holdfast-endpoints-');
    const first = await startWorkspace(dir);
    const tab = await signIn(first.workspace.url);
    expect((statSync(dir.file('local-workspace.secret')).mode & 0o777).toString(8)).toBe('600');
    await first.close();

    // Same port, same database: the open tab's cookie still works after `npm start` again.
    const port = Number(new URL(first.workspace.url).port);
    const second = await startWorkspace(dir, { port });
    expect(second.workspace.url).toBe(first.workspace.url);
    expect((await tab.get('/state?as=U0ALICE')).status).toBe(200);
    await second.close();

    rmSync(dir.file('local-workspace.secret'));
    const third = await startWorkspace(dir, { port });
    expect(third.workspace.url).not.toBe(first.workspace.url);
    const stale = await tab.get('/');
    expect(stale.status).toBe(403);
    expect(stale.text).toContain('printed in its terminal');
  });
});
