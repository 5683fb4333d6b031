import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/temp-dir.js';
import { freePort, type HoldfastProcess, startHoldfastProcess } from './holdfast-process.js';
import { type SignedInTab, signIn, waitForState } from './local-http.js';

const running: HoldfastProcess[] = [];
afterEach(async () => {
  for (const holdfast of running.splice(0)) await holdfast.stop();
});

const say = async (tab: SignedInTab, text: string) => {
  const reply = await tab.post('/ui/message', { user: 'U0ALICE', channel: 'C0OPS', text });
  return JSON.parse(reply.text) as { ok: boolean; ts: string };
};

describe('npm start with no Slack token and no OpenAI key', () => {
  it('serves the local workspace, answers with the demo model and asks before running a shell command', async () => {
    const dir = tempDir('holdfast-local-');
    const port = await freePort();
    const holdfast = await startHoldfastProcess({ port, dir: dir.path });
    running.push(holdfast);
    expect(holdfast.url).toMatch(new RegExp(`^http://localhost:${port}/\\?token=[A-Za-z0-9_-]{43}$`));
    expect(holdfast.output()).toContain('its token signs your browser in');

    const tab = await signIn(holdfast.url);
    expect(tab.exchange.status).toBe(303);
    expect(tab.exchange.headers.location).toBe('/');
    const page = await tab.get('/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.text).toContain('holdfast local workspace');
    expect(page.text).toContain("new EventSource('/stream')");

    const hello = await say(tab, '<@U0HOLDFAST> hello');
    expect(hello.ok).toBe(true);
    const reply = await waitForState(
      tab,
      'U0ALICE',
      (state) =>
        state.messages.find((message) => message.threadTs === hello.ts && message.user === 'U0HOLDFAST'),
      'the demo model answering hello in its thread',
    );
    expect(reply.text).toContain('demo model');

    const ask = await say(tab, '<@U0HOLDFAST> run `echo hi`');
    const card = await waitForState(
      tab,
      'U0ALICE',
      (state) =>
        state.messages.find(
          (message) =>
            message.threadTs === ask.ts &&
            message.blocks.some((block) =>
              block.elements?.some((element) => element.action_id === 'holdfast.approval.allow'),
            ),
        ),
      'an approval card for echo hi',
    );
    expect(card.text).toContain('echo hi');
  });
});
