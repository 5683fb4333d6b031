import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { freePort, startHoldfastProcess } from '../flows/local/holdfast-process.js';
import { shot, switchTo, useChromium } from './chromium.js';

const { browser, dir } = useChromium();

describe('a running turn in the browser', () => {
  it('streams a running answer with its task and Stop, and stops it when the requester presses Stop', async () => {
    const streamDir = path.join(dir(), 'stream');
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
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
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
    // The stream ends, and the message keeps what ran with no Stop button left to press.
    const open = page.locator('#thread-messages .stream[data-stream="open"]');
    await expect.poll(() => open.count(), { timeout: 15_000 }).toBe(0);
    const stopButtons = page.locator('#thread-messages [data-action-id="holdfast.turn.stop"]');
    await expect.poll(() => stopButtons.count(), { timeout: 15_000 }).toBe(0);
    await expect
      .poll(() => page.locator('#thread-messages').textContent(), { timeout: 15_000 })
      .toContain('Using run_shell for this.');
    const notice = page.locator('#thread-messages .message', { hasText: /stopped by @alice/i });
    await notice.first().waitFor({ timeout: 15_000 });
    await shot(page, '9-stopped');
    await page.close();
  });
});
