import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { freePort, startHoldfastProcess } from '../flows/local/holdfast-process.js';
import { signIn } from '../flows/local/local-http.js';
import { shot, useChromium } from './chromium.js';

const { browser, dir } = useChromium();

describe('the local workspace and other sites', () => {
  it('keeps a page on another site out, and lets a link from one sign in with the printed URL', async () => {
    const port = await freePort();
    const other = await startHoldfastProcess({ port, dir: path.join(dir(), 'other-site') });
    onTestFinished(() => other.stop());
    const workspace = `http://localhost:${port}`;

    // Another site (another origin and, for cookies, another site: 127.0.0.1 is not localhost).
    const attacker = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<!doctype html><a id="printed" href="${other.url}">open the workspace</a>`);
    });
    attacker.listen(0, '127.0.0.1');
    await once(attacker, 'listening');
    onTestFinished(() => new Promise<void>((resolve) => attacker.close(() => resolve())));
    const attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;

    const context = await browser().newContext();
    onTestFinished(() => context.close());
    const page = await context.newPage();

    // The person signed in once in this browser; then a page on another site tries to act as them.
    await page.goto(other.url);
    await expect.poll(() => page.locator('#connection').textContent()).toBe('live');
    await page.goto(attackerUrl);
    const posted = await page.evaluate(async (target) => {
      await fetch(`${target}/ui/message`, {
        method: 'POST',
        mode: 'no-cors',
        body: JSON.stringify({ user: 'U0ALICE', channel: 'C0OPS', text: '<@U0HOLDFAST> run `touch pwned`' }),
      });
      return 'answered';
    }, workspace);
    expect(posted).toBe('answered');
    const tab = await signIn(other.url);
    expect((await tab.state('U0ALICE')).messages).toEqual([]);

    // DNS rebinding: the workspace's address under the attacker's name gets nothing, not even the page.
    const rebound = await page.goto(`http://rebound.test:${port}/`);
    expect(rebound?.status()).toBe(403);
    expect(await page.textContent('body')).toContain(`only answers requests addressed to localhost:${port}`);
    await shot(page, '7-rebinding-refused');

    // A link to the printed URL followed from another site (a web terminal, say) signs a fresh browser
    // in, though SameSite=Strict keeps the new cookie off the redirect that follows.
    const fresh = await browser().newContext();
    onTestFinished(() => fresh.close());
    const linked = await fresh.newPage();
    await linked.goto(attackerUrl);
    await linked.click('#printed');
    await expect.poll(() => linked.locator('#connection').textContent()).toBe('live');
    expect(linked.url()).toBe(`${workspace}/`);
  });
});
