import path from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { freePort, type HoldfastProcess, startHoldfastProcess } from '../flows/local/holdfast-process.js';
import { signIn, waitForState } from '../flows/local/local-http.js';
import { approvalCard, shot, switchTo, useChromium } from './chromium.js';

const { browser, dir } = useChromium();
let holdfast: HoldfastProcess | undefined;
afterAll(() => holdfast?.stop());

describe('local workspace in a browser', () => {
  it('refuses carol, survives a restart, and lets bob allow the shell command', async () => {
    const port = await freePort();
    holdfast = await startHoldfastProcess({ port, dir: dir() });
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
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
    holdfast = await startHoldfastProcess({ port, dir: dir() });
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
    const decisions = await startHoldfastProcess({ port, dir: path.join(dir(), 'decisions') });
    onTestFinished(() => decisions.stop());
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
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

    // The whole plan at once: two commands in one request are one card that lists both, each with its own
    // buttons, and neither runs until both are allowed.
    await page.click('[data-channel="C0OPS"]');
    await switchTo(page, 'U0ALICE');
    await page.fill('#channel-input', '@holdfast run `echo batch-one` and `echo batch-two`');
    await page.press('#channel-input', 'Enter');
    const cards = approvalCard(page);
    await expect.poll(() => cards.count(), { timeout: 20_000 }).toBe(1);
    const plan = cards.nth(0);
    expect(await plan.textContent()).toContain('echo batch-one');
    expect(await plan.textContent()).toContain('echo batch-two');
    expect(await plan.textContent()).toContain('Nothing runs until every call is decided');
    await switchTo(page, 'U0BOB');
    await shot(page, '14-batch-cards');
    const batchAnswer = page.locator('#thread-messages .message', { hasText: 'finished' }).filter({
      hasText: 'batch-',
    });
    const allows = plan.locator('[data-action-id="holdfast.approval.allow"]');
    await expect.poll(() => allows.count()).toBe(2);
    await allows.nth(0).click();
    await page.locator('#confirm[open]').waitFor();
    await page.click('#confirm-ok');
    await expect.poll(() => allows.count(), { timeout: 15_000 }).toBe(1);
    expect(await batchAnswer.count()).toBe(0);
    await allows.nth(0).click();
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
});
