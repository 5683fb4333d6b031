import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/temp-dir.js';
import { freePort, type HoldfastProcess, startHoldfastProcess, waitForState } from './holdfast-process.js';

const running: HoldfastProcess[] = [];
afterEach(async () => {
  for (const holdfast of running.splice(0)) await holdfast.stop();
});

const say = (url: string, text: string) =>
  fetch(new URL('/ui/message', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'U0ALICE', channel: 'C0OPS', text }),
  }).then(async (response) => (await response.json()) as { ok: boolean; ts: string });

describe('npm start with no Slack token and no OpenAI key', () => {
  it('serves the local workspace, answers with the demo model and asks before running a shell command', async () => {
    const dir = tempDir('holdfast-local-');
    const port = await freePort();
    const holdfast = await startHoldfastProcess({ port, dir: dir.path });
    running.push(holdfast);
    expect(holdfast.url).toBe(`http://127.0.0.1:${port}/`);

    const page = await fetch(holdfast.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('holdfast local workspace');
    expect(html).toContain("new EventSource('/stream')");

    const hello = await say(holdfast.url, '<@U0HOLDFAST> hello');
    expect(hello.ok).toBe(true);
    const reply = await waitForState(
      holdfast.url,
      'U0ALICE',
      (state) =>
        state.messages.find((message) => message.threadTs === hello.ts && message.user === 'U0HOLDFAST'),
      'the demo model answering hello in its thread',
    );
    expect(reply.text).toContain('demo model');

    const ask = await say(holdfast.url, '<@U0HOLDFAST> run `echo hi`');
    const card = await waitForState(
      holdfast.url,
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
