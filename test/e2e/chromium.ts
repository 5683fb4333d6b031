import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { projectRoot } from '../flows/local/holdfast-process.js';

const chromiumPath = '/usr/bin/chromium';
const screenshots = path.join(projectRoot, 'test-results', 'local-approval');

/**
 * Debian's Chromium, headless, launched once for a test file, and a scratch folder for the holdfast
 * processes it starts; both go when the file's tests end.
 */
export function useChromium(): { readonly browser: () => Browser; readonly dir: () => string } {
  let browser: Browser | undefined;
  let dir: string | undefined;
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
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('Chromium has not been launched yet');
    return value;
  };
  return { browser: () => started(browser), dir: () => started(dir) };
}

/** Kept under test-results/ for a person to look at after a run. */
export const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });

export const approvalCard = (page: Page) =>
  page.locator('#thread-messages .message', {
    has: page.locator('[data-action-id="holdfast.approval.allow"]'),
  });

export async function switchTo(page: Page, user: string) {
  await page.selectOption('#viewer', user);
  await expect.poll(() => page.locator('#viewer').inputValue()).toBe(user);
  // The page shows what the server holds for `user` only once it has asked and drawn it.
  await expect.poll(() => page.locator('body').getAttribute('data-rendered-for')).toBe(user);
}
