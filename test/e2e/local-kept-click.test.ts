import { afterAll, describe, expect, it } from 'vitest';
import { freePort, type HoldfastProcess, startHoldfastProcess } from '../flows/local/holdfast-process.js';
import { approvalCard, shot, switchTo, useChromium } from './chromium.js';

const { browser, dir } = useChromium();
let holdfast: HoldfastProcess | undefined;
afterAll(() => holdfast?.stop());

describe('a click made while holdfast cannot be reached', () => {
  it('is kept, said so on the page, and sent once holdfast is back', async () => {
    const port = await freePort();
    holdfast = await startHoldfastProcess({ port, dir: dir() });
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(holdfast.url);
    await expect.poll(() => page.locator('#connection').textContent()).toBe('live');
    await switchTo(page, 'U0ALICE');
    await page.fill('#channel-input', '@holdfast run `echo kept-click`');
    await page.press('#channel-input', 'Enter');
    const card = approvalCard(page);
    await card.waitFor({ timeout: 20_000 });
    await switchTo(page, 'U0BOB');

    await holdfast.stop();
    await card.locator('[data-action-id="holdfast.approval.allow"]').click();
    await page.locator('#confirm[open]').waitFor();
    await page.click('#confirm-ok');

    const notice = page.locator('#notice');
    await expect.poll(() => notice.textContent(), { timeout: 10_000 }).toContain('has not reached holdfast');
    expect(await notice.textContent()).toContain('"Allow"');
    expect(await page.locator('body').getAttribute('data-unsent-clicks')).toBe('1');
    await shot(page, 'kept-1-click-kept');

    holdfast = await startHoldfastProcess({ port, dir: dir() });
    const answer = page.locator('#thread-messages .message', { hasText: 'finished' });
    await answer.waitFor({ timeout: 30_000 });
    expect(await answer.textContent()).toContain('kept-click');
    expect(await page.locator('body').getAttribute('data-unsent-clicks')).toBe('0');
    await expect.poll(() => notice.isVisible()).toBe(false);
    await shot(page, 'kept-2-sent-when-back');
  });
});
