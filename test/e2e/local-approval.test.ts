import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  freePort,
  type HoldfastProcess,
  projectRoot,
  startHoldfastProcess,
} from '../flows/local/holdfast-process.js';
import { signIn, waitForState } from '../flows/local/local-http.js';

const chromiumPath = '/usr/bin/chromium';
const screenshots = path.join(projectRoot, 'test-results', 'local-approval');

let browser: Browser;
let holdfast: HoldfastProcess | undefined;
let dir: string;

beforeAll(async () => {
  if (!existsSync(chromiumPath))
    throw new Error(`Chromium is not installed at ${chromiumPath}; install it (apt-get install chromium).`);
  mkdirSync(screenshots, { recursive: true });
  dir = mkdtempSync(path.join(os.tmpdir(), 'holdfast-e2e-'));
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // A name that resolves to the workspace's address, as a DNS-rebinding attacker's would.
      '--host-resolver-rules=MAP rebound.test 127.0.0.1',
    ],
  });
});

afterAll(async () => {
  await holdfast?.stop();
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });

const approvalCard = (page: Page) =>
  page.locator('#thread-messages .message', {
    has: page.locator('[data-action-id="holdfast.approval.allow"]'),
  });

async function switchTo(page: Page, user: string) {
  await page.selectOption('#viewer', user);
  await expect.poll(() => page.locator('#viewer').inputValue()).toBe(user);
  // The page shows what the server holds for `user` only once it has asked and drawn it.
  await expect.poll(() => page.locator('body').getAttribute('data-rendered-for')).toBe(user);
}

describe('local workspace in a browser', () => {
  it('refuses carol, survives a restart, and lets bob allow the shell command', async () => {
    const port = await freePort();
    holdfast = await startHoldfastProcess({ port, dir });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // The printed URL's token is traded for a cookie and dropped from the address bar.
    await page.goto(holdfast.url);
    expect(page.url()).toBe(`http://localhost:${port}/`);
    await expect.poll(() => page.locator('#connection').textContent()).toBe('live');
    await switchTo(page, 'U0ALICE');
    await expect.poll(() => page.locator('#model-label').textContent()).toContain('Demo model');
    await shot(page, '1-opened');

    await page.fill('#channel-input', '@holdfast run `echo hello-from-e2e`');
    await page.press('#channel-input', 'Enter');
    const card = approvalCard(page);
    await card.waitFor({ timeout: 20_000 });
    await expect.poll(() => card.textContent()).toContain('echo hello-from-e2e');
    await shot(page, '2-card');

    await switchTo(page, 'U0CAROL');
    await card.locator('[data-action-id="holdfast.approval.allow"]').click();
    await page.locator('#confirm[open]').waitFor();
    await shot(page, '3-carol-confirm');
    await page.click('#confirm-ok');
    const refusal = page.locator('#thread-messages .message.ephemeral');
    await refusal.waitFor({ timeout: 15_000 });
    expect(await refusal.textContent()).toContain('Only visible to you');
    expect(await refusal.textContent()).toMatch(/not an approver/i);
    await shot(page, '4-carol-refused');

    // The card waits in SQLite; a new process on the same files picks it up. The workspace keeps its
    // secret beside its database, so the open tab is still signed in.
    const printed = holdfast.url;
    await holdfast.stop();
    holdfast = await startHoldfastProcess({ port, dir });
    expect(holdfast.url).toBe(printed);
    await page.reload();
    await expect.poll(() => page.locator('#connection').textContent()).toBe('live');
    await switchTo(page, 'U0BOB');
    await card.waitFor({ timeout: 15_000 });
    expect(await page.locator('#thread-messages .message.ephemeral').count()).toBe(0);
    await shot(page, '5-after-restart-as-bob');

    await card.locator('[data-action-id="holdfast.approval.allow"]').click();
    await page.locator('#confirm[open]').waitFor();
    await page.click('#confirm-ok');
    const answer = page.locator('#thread-messages .message', { hasText: 'finished' });
    await answer.waitFor({ timeout: 20_000 });
    expect(await answer.textContent()).toContain('hello-from-e2e');
    const decided = page.locator('#thread-messages .message', { hasText: 'Allowed by' });
    await decided.waitFor();
    expect(await decided.textContent()).toContain('Allowed by @bob');
    expect(await page.locator('#thread-messages [data-action-id="holdfast.approval.allow"]').count()).toBe(0);
    await shot(page, '6-allowed-by-bob');

    const state = await waitForState(
      await signIn(holdfast.url),
      'U0BOB',
      (snapshot) =>
        snapshot.messages.find(
          (message) => message.text.includes('hello-from-e2e') && message.text.includes('finished'),
        ),
      'the final answer in the workspace',
    );
    expect(state.user).toBe('U0HOLDFAST');
  });

  it('lets bob edit a call before allowing it, deny one with a reason, and grant one he later revokes', async () => {
    const port = await freePort();
    const decisions = await startHoldfastProcess({ port, dir: path.join(dir, 'decisions') });
    onTestFinished(() => decisions.stop());
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    onTestFinished(() => page.close());
    await page.goto(decisions.url);
    await expect.poll(() => page.locator('#connection').textContent()).toBe('live');
    const modal = page.locator('#modal[open]');
    const ask = async (command: string) => {
      await switchTo(page, 'U0ALICE');
      await page.fill('#channel-input', `@holdfast run \`${command}\``);
      await page.press('#channel-input', 'Enter');
      const card = approvalCard(page);
      await card.waitFor({ timeout: 20_000 });
      await expect.poll(() => card.textContent()).toContain(command);
      await switchTo(page, 'U0BOB');
      return card;
    };
    const decidedCard = (words: string) => page.locator('#thread-messages .message', { hasText: words });

    // Edit, then allow: the form holds the command; the edited one runs, and the card says it was edited.
    let card = await ask('echo proposed-in-browser');
    await card.locator('[data-action-id="holdfast.approval.edit"]').click();
    await modal.waitFor();
    const command = modal.locator('[data-block="holdfast.edit.0"]');
    expect(await command.inputValue()).toBe('echo proposed-in-browser');
    await command.fill('echo edited-in-browser');
    await shot(page, '8-edit-form');
    await page.click('#modal-submit');
    const edited = decidedCard('Arguments edited by');
    await edited.waitFor({ timeout: 20_000 });
    expect(await edited.textContent()).toContain('Allowed by @bob');
    expect(await edited.textContent()).toContain('echo edited-in-browser');
    const ran = page.locator('#thread-messages .message', { hasText: 'finished' });
    await ran.waitFor({ timeout: 20_000 });
    expect(await ran.textContent()).toContain('edited-in-browser');
    await shot(page, '9-edited-and-allowed');

    // Deny with a reason: the card and the thread say why.
    card = await ask('echo denied-in-browser');
    await card.locator('[data-action-id="holdfast.approval.deny"]').click();
    await modal.waitFor();
    await modal.locator('[data-block="holdfast.deny.reason"]').fill('not during the freeze');
    await page.click('#modal-submit');
    const denied = decidedCard('Denied by @bob');
    await denied.waitFor({ timeout: 20_000 });
    expect(await denied.textContent()).toContain('not during the freeze');
    await shot(page, '10-denied-with-a-reason');

    // Always allow…: the grant form's defaults (this thread, one hour), then the grant revoked from Home.
    card = await ask('echo granted-in-browser');
    await card.locator('[data-action-id="holdfast.approval.always"]').click();
    await modal.waitFor();
    expect(await modal.textContent()).toContain('What it covers');
    await shot(page, '11-grant-form');
    await page.click('#modal-submit');
    const granted = decidedCard('with a grant');
    await granted.waitFor({ timeout: 20_000 });
    await page.click('[data-home]');
    const revoke = page.locator('#home [data-action-id="holdfast.grant.revoke"]');
    await revoke.waitFor({ timeout: 15_000 });
    expect(await page.locator('#home').textContent()).toContain('Your standing grants');
    await shot(page, '12-grant-in-home');
    await revoke.click();
    await page.locator('#confirm[open]').waitFor();
    await page.click('#confirm-ok');
    await expect
      .poll(() => page.locator('#home').textContent(), { timeout: 15_000 })
      .toContain('You have no standing grants.');
    expect(await revoke.count()).toBe(0);
    await shot(page, '13-grant-revoked');

    // The whole plan at once: two commands in one request show two cards together, and neither runs
    // until both are allowed.
    await page.click('[data-channel="C0OPS"]');
    await switchTo(page, 'U0ALICE');
    await page.fill('#channel-input', '@holdfast run `echo batch-one` and `echo batch-two`');
    await page.press('#channel-input', 'Enter');
    const cards = approvalCard(page);
    await expect.poll(() => cards.count(), { timeout: 20_000 }).toBe(2);
    expect(await cards.nth(0).textContent()).toContain('echo batch-one');
    expect(await cards.nth(1).textContent()).toContain('echo batch-two');
    await switchTo(page, 'U0BOB');
    await shot(page, '14-batch-cards');
    const batchAnswer = page.locator('#thread-messages .message', { hasText: 'finished' }).filter({
      hasText: 'batch-',
    });
    await cards.nth(0).locator('[data-action-id="holdfast.approval.allow"]').click();
    await page.locator('#confirm[open]').waitFor();
    await page.click('#confirm-ok');
    await expect.poll(() => cards.count(), { timeout: 15_000 }).toBe(1);
    expect(await batchAnswer.count()).toBe(0);
    await cards.nth(0).locator('[data-action-id="holdfast.approval.allow"]').click();
    await page.locator('#confirm[open]').waitFor();
    await page.click('#confirm-ok');
    await batchAnswer.first().waitFor({ timeout: 20_000 });
    const answered = await batchAnswer.first().textContent();
    expect(answered).toContain('batch-one');
    expect(answered).toContain('batch-two');
    await shot(page, '15-batch-allowed');

    // Asked inside a thread people already wrote in: the model reads it first (the demo model says so).
    await page.click('[data-channel="C0OPS"]');
    await switchTo(page, 'U0ALICE');
    await page.fill('#channel-input', 'the api deploy failed at 14:02');
    await page.press('#channel-input', 'Enter');
    const root = page.locator('#channel-messages .message', { hasText: 'the api deploy failed at 14:02' });
    await root.locator('[data-open-thread]').click();
    await page.fill('#thread-input', '@holdfast what happened here?');
    await page.press('#thread-input', 'Enter');
    const readIt = page.locator('#thread-messages .message', { hasText: 'I read the earlier message' });
    await readIt.waitFor({ timeout: 20_000 });
    await shot(page, '16-thread-context');
  });

  it('streams a running answer with its task and Stop, and stops it when the requester presses Stop', async () => {
    const streamDir = path.join(dir, 'stream');
    mkdirSync(streamDir, { recursive: true });
    // A command the policy lets run at once, long enough to watch and stop.
    const policy = path.join(streamDir, 'policy.yml');
    writeFileSync(
      policy,
      'rules:\n  - tool: run_shell\n    match: { command: "sleep *" }\n    action: allow\n',
    );
    const running = await startHoldfastProcess({
      port: await freePort(),
      dir: streamDir,
      env: { HOLDFAST_POLICY: policy },
    });
    onTestFinished(() => running.stop());
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(running.url);
    await expect.poll(() => page.locator('#connection').textContent()).toBe('live');
    await switchTo(page, 'U0ALICE');

    await page.fill('#channel-input', '@holdfast run `sleep 60`');
    await page.press('#channel-input', 'Enter');
    const stream = page.locator('#thread-messages .stream[data-stream="open"]');
    await stream.waitFor({ timeout: 20_000 });
    await expect
      .poll(() => stream.locator('.stream-text').textContent())
      .toContain('Using run_shell for this.');
    const task = stream.locator('.task[data-task-status="in_progress"]');
    await task.waitFor({ timeout: 15_000 });
    expect(await task.textContent()).toContain('run_shell');
    expect(await task.textContent()).toContain('Running');
    await shot(page, '8-streaming');

    await stream.locator('[data-action-id="holdfast.turn.stop"]').click();
    await page.locator('#confirm[open]').waitFor();
    await page.click('#confirm-ok');
    const stopped = page.locator('#thread-messages .stream[data-stream="stopped"]');
    await stopped.waitFor({ timeout: 15_000 });
    const notice = page.locator('#thread-messages .message', { hasText: /stopped by @alice/i });
    await notice.first().waitFor({ timeout: 15_000 });
    await shot(page, '9-stopped');
    await page.close();
  });

  it('keeps a page on another site out, and lets a link from one sign in with the printed URL', async () => {
    const port = await freePort();
    const other = await startHoldfastProcess({ port, dir: path.join(dir, 'other-site') });
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

    const context = await browser.newContext();
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
    const fresh = await browser.newContext();
    onTestFinished(() => fresh.close());
    const linked = await fresh.newPage();
    await linked.goto(attackerUrl);
    await linked.click('#printed');
    await expect.poll(() => linked.locator('#connection').textContent()).toBe('live');
    expect(linked.url()).toBe(`${workspace}/`);
  });
});
