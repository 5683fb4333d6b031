import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  type HoldfastProcess,
  projectRoot,
  startHoldfastProcess,
  waitForState,
} from '../flows/local/holdfast-process.js';

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
}

describe('local workspace in a browser', () => {
  it('refuses carol, survives a restart, and lets bob allow the shell command', async () => {
    const port = await freePort();
    holdfast = await startHoldfastProcess({ port, dir });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(holdfast.url);
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

    // The card waits in SQLite; a new process on the same files picks it up.
    await holdfast.stop();
    holdfast = await startHoldfastProcess({ port, dir });
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
      holdfast.url,
      'U0BOB',
      (snapshot) =>
        snapshot.messages.find(
          (message) => message.text.includes('hello-from-e2e') && message.text.includes('finished'),
        ),
      'the final answer in the workspace',
    );
    expect(state.user).toBe('U0HOLDFAST');
  });
});
