import { afterAll, describe, expect, it } from 'vitest';
import { freePort, type HoldfastProcess, startHoldfastProcess } from '../flows/local/holdfast-process.js';
import { approvalCard, shot, switchTo, useChromium } from './chromium.js';

const { browser, dir } = useChromium();
let holdfast: HoldfastProcess | undefined;
afterAll(() => holdfast?.stop());

const typed = 'echo a && b < c';

describe('the local page shows what people typed, as Slack does', () => {
  it('renders `a && b < c` as typed in the message, the card and the edit form, and names channels', async () => {
    const port = await freePort();
    holdfast = await startHoldfastProcess({ port, dir: dir() });
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(holdfast.url);
    await expect.poll(() => page.locator('#connection').textContent()).toBe('live');
    await switchTo(page, 'U0ALICE');

    await page.fill('#channel-input', `@holdfast run \`${typed}\``);
    await page.press('#channel-input', 'Enter');
    const card = approvalCard(page);
    await card.waitFor({ timeout: 20_000 });
    const asked = page.locator('#channel-messages .message', { hasText: 'run' }).first();
    expect(await asked.textContent()).toContain(typed);
    await expect.poll(() => card.textContent()).toContain(typed);
    expect(await card.textContent()).not.toMatch(/&amp;|&lt;|&gt;/);
    await shot(page, 'text-1-card');

    await switchTo(page, 'U0BOB');
    await card.locator('[data-action-id="holdfast.approval.edit"]').click();
    const modal = page.locator('#modal[open]');
    await modal.waitFor();
    expect(await modal.locator('[data-block="holdfast.edit.0"]').inputValue()).toBe(typed);
    expect(await modal.textContent()).not.toMatch(/&amp;|&lt;|&gt;/);
    await shot(page, 'text-2-edit-form');
    await page.click('#modal-close');

    // Bob's copy of the request in his direct messages names the channel it came from.
    await page.click('[data-channel="D0BOB"]');
    const copy = page.locator('#channel-messages .message', { hasText: typed });
    await copy.waitFor({ timeout: 15_000 });
    expect(await copy.textContent()).toContain('#ops');
    expect(await copy.textContent()).not.toContain('C0OPS');
    await shot(page, 'text-3-dm-copy');
  });

  it('refuses a message longer than Slack takes, saying why, and keeps the text', async () => {
    holdfast ??= await startHoldfastProcess({ port: await freePort(), dir: dir() });
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(holdfast.url);
    await expect.poll(() => page.locator('#connection').textContent()).toBe('live');
    await switchTo(page, 'U0ALICE');
    const long = `@holdfast ${'x'.repeat(50_000)}`;

    await page.fill('#channel-input', long);
    await page.press('#channel-input', 'Enter');

    const notice = page.locator('#notice');
    await expect.poll(() => notice.isVisible()).toBe(true);
    expect(await notice.textContent()).toContain('Slack takes at most 40,000');
    expect(await page.locator('#channel-input').inputValue()).toBe(long);
    expect(await page.locator('#channel-messages .message', { hasText: 'xxxxxxxx' }).count()).toBe(0);
  });
});
