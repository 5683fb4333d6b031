import { describe, expect, it } from 'vitest';
import { startLocalHoldfast } from './local-holdfast.js';
import {
  buttonOf,
  type HttpReply,
  type SignedInTab,
  type StateMessage,
  send,
  waitForState,
} from './local-http.js';

/** What a browser sends for a `fetch(..., { method: 'POST', mode: 'no-cors', body })` from another site. */
const crossSite = (origin: string) => ({
  origin,
  'sec-fetch-site': 'cross-site',
  'sec-fetch-mode': 'no-cors',
  'content-type': 'text/plain;charset=UTF-8',
});

const asAlice = (text: string) => JSON.stringify({ user: 'U0ALICE', channel: 'C0OPS', text });

const errorOf = (reply: HttpReply) => (JSON.parse(reply.text) as { error?: string }).error;

async function postedTexts(tab: SignedInTab) {
  return (await tab.state('U0ALICE')).messages.map((message) => message.text);
}

const allowButton = (message: StateMessage) => buttonOf(message, 'holdfast.approval.allow');

/**
 * The local workspace can make holdfast run shell commands on the developer's machine, so what another
 * web page can send it matters: a tab on another site posts `text/plain` (a "simple request" browsers
 * send without asking), a DNS-rebinding page reaches it under its own host name, a page on another
 * localhost port is "same-site". Each is refused before anything reaches holdfast.
 */
describe('the local workspace, against other web pages', () => {
  it('refuses a cross-site text/plain post as alice, so nothing reaches holdfast', async () => {
    const { tab, at, url } = await startLocalHoldfast('holdfast-trust-');

    const fromAnotherSite = await send(at('/ui/message'), {
      method: 'POST',
      headers: crossSite('https://attacker.example'),
      body: asAlice('<@U0HOLDFAST> run `touch pwned`'),
    });
    expect(fromAnotherSite.status).toBe(403);
    expect(errorOf(fromAnotherSite)).toBe('cross_origin');

    // A page on another localhost port is "same-site", so SameSite lets the cookie go along.
    const fromAnotherPort = await send(at('/ui/message'), {
      method: 'POST',
      headers: {
        ...crossSite(`http://localhost:${Number(url.port) + 1}`),
        'sec-fetch-site': 'same-site',
        cookie: tab.cookie,
      },
      body: asAlice('<@U0HOLDFAST> run `touch pwned`'),
    });
    expect(fromAnotherPort.status).toBe(403);

    // Even the page's own origin may not send text/plain: only JSON, which needs a CORS preflight.
    const plainText = await send(at('/ui/message'), {
      method: 'POST',
      headers: { origin: tab.origin, 'sec-fetch-site': 'same-origin', cookie: tab.cookie },
      body: asAlice('<@U0HOLDFAST> run `touch pwned`'),
    });
    expect(plainText.status).toBe(415);

    expect(await postedTexts(tab)).toEqual([]);
  });

  it('refuses a foreign Host header, the mark of DNS rebinding, before anything else', async () => {
    const { tab, at, url } = await startLocalHoldfast('holdfast-trust-');
    const rebound = `attacker.example:${url.port}`;
    // After rebinding, the attacker's page is same-origin with itself: its own Origin, no cookie of ours.
    const headers = { host: rebound, origin: `http://${rebound}`, 'sec-fetch-site': 'same-origin' };

    for (const reply of [
      await send(at('/'), { headers }),
      await send(at('/state?as=U0ALICE'), { headers }),
      await send(at('/ui/message'), {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', cookie: tab.cookie },
        body: asAlice('<@U0HOLDFAST> run `touch pwned`'),
      }),
    ]) {
      expect(reply.status).toBe(403);
      expect(reply.headers['content-type']).toContain('text/plain');
      expect(reply.text).toContain(`only answers requests addressed to localhost:${url.port}`);
    }
    expect(await postedTexts(tab)).toEqual([]);
  });

  it('refuses a browser without the secret and tells it to open the printed URL', async () => {
    const { tab, at, url } = await startLocalHoldfast('holdfast-trust-');
    const sameOrigin = { origin: tab.origin, 'sec-fetch-site': 'same-origin' };

    const page = await send(at('/'), { headers: { 'sec-fetch-site': 'none' } });
    expect(page.status).toBe(403);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.text).toContain('printed in its terminal');

    const wrongToken = await send(at('/?token=guessed'), { headers: { 'sec-fetch-site': 'none' } });
    expect(wrongToken.status).toBe(403);
    expect(wrongToken.headers['set-cookie']).toBeUndefined();

    const staleCookie = `holdfast_local_${url.port}=${'x'.repeat(43)}`;
    for (const reply of [
      await send(at('/state?as=U0ALICE'), { headers: sameOrigin }),
      await send(at('/stream'), { headers: sameOrigin }),
      await send(at('/ui/message'), {
        method: 'POST',
        headers: { ...sameOrigin, 'content-type': 'application/json' },
        body: asAlice('<@U0HOLDFAST> run `touch pwned`'),
      }),
      await send(at('/ui/message'), {
        method: 'POST',
        headers: { ...sameOrigin, 'content-type': 'application/json', cookie: staleCookie },
        body: asAlice('<@U0HOLDFAST> run `touch pwned`'),
      }),
    ]) {
      expect(reply.status).toBe(403);
      expect(errorOf(reply)).toBe('not_signed_in');
    }
    expect(await postedTexts(tab)).toEqual([]);
  });

  it('refuses an Origin of another site even when the secret cookie goes along', async () => {
    const { tab, at } = await startLocalHoldfast('holdfast-trust-');
    const signedIn = { cookie: tab.cookie, 'content-type': 'application/json' };

    const post = await send(at('/ui/message'), {
      method: 'POST',
      headers: { ...signedIn, origin: 'https://attacker.example' },
      body: asAlice('<@U0HOLDFAST> run `touch pwned`'),
    });
    expect(post.status).toBe(403);
    expect(errorOf(post)).toBe('cross_origin');

    const stream = await send(at('/stream'), {
      headers: { cookie: tab.cookie, origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(stream.status).toBe(403);

    // A link followed from another site gets only a page that reloads itself from its own origin.
    const linked = await send(at('/'), { headers: { cookie: tab.cookie, 'sec-fetch-site': 'cross-site' } });
    expect(linked.text).toContain('location.replace');
    expect(linked.text).not.toContain('EventSource');

    // A browser always says where a change comes from; a cookie alone is not enough.
    const unmarked = await send(at('/ui/message'), {
      method: 'POST',
      headers: signedIn,
      body: asAlice('<@U0HOLDFAST> run `touch pwned`'),
    });
    expect(unmarked.status).toBe(403);

    expect(await postedTexts(tab)).toEqual([]);
  });

  it('signs a browser in with the printed URL: an HttpOnly, SameSite=Strict cookie, then the clean URL', async () => {
    const { tab, url } = await startLocalHoldfast('holdfast-trust-');
    expect(url.host).toBe(`localhost:${url.port}`);
    expect(tab.exchange.status).toBe(303);
    expect(tab.exchange.headers.location).toBe('/');
    const cookie = tab.exchange.headers['set-cookie']?.[0] ?? '';
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    const page = await tab.get('/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('holdfast local workspace');
    const posted = await tab.post('/ui/message', { user: 'U0ALICE', channel: 'C0OPS', text: 'morning' });
    expect(posted.status).toBe(200);
    expect(await postedTexts(tab)).toEqual(['morning']);
  });

  it("refuses a cross-site click as bob on a real card; bob's own click runs the command", async () => {
    const { tab, at } = await startLocalHoldfast('holdfast-trust-');
    const asked = await tab.post('/ui/message', {
      user: 'U0ALICE',
      channel: 'C0OPS',
      text: '<@U0HOLDFAST> run `echo trust-check`',
    });
    expect(asked.status).toBe(200);
    const { ts } = JSON.parse(asked.text) as { ts: string };
    const card = await waitForState(
      tab,
      'U0BOB',
      (state) => state.messages.find((message) => message.threadTs === ts && allowButton(message)),
      'the approval card',
    );
    const { block, element } = allowButton(card)!;
    const clickAsBob = (actionId: string) => ({
      user: 'U0BOB',
      channel: card.channel,
      message_ts: card.ts,
      action_id: actionId,
      value: element.value,
      block_id: block.block_id,
    });

    // Had either forged click gone through, Deny would have decided the card and Allow below would fail.
    for (const actionId of ['holdfast.approval.deny', 'holdfast.approval.allow']) {
      const forged = await send(at('/ui/click'), {
        method: 'POST',
        headers: crossSite('https://attacker.example'),
        body: JSON.stringify(clickAsBob(actionId)),
      });
      expect(forged.status).toBe(403);
    }

    const allowed = await tab.post('/ui/click', clickAsBob('holdfast.approval.allow'));
    expect(allowed.status).toBe(200);
    const answer = await waitForState(
      tab,
      'U0BOB',
      (state) =>
        state.messages.find(
          (message) =>
            message.threadTs === ts &&
            message.text.includes('finished') &&
            message.text.includes('trust-check'),
        ),
      'the command run after bob allowed it',
    );
    expect(answer.user).toBe('U0HOLDFAST');
  });
});
