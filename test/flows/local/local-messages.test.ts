import { describe, expect, it, onTestFinished } from 'vitest';
import { startLocalWorkspace } from '../../../src/local/start-local-workspace.js';
import { tempDir } from '../../support/temp-dir.js';
import { createTestLogger } from '../../support/test-logger.js';
import { startLocalHoldfast } from './local-holdfast.js';
import { signIn, waitForState } from './local-http.js';

describe('local mode, as a person writing to holdfast', () => {
  it('refuses a message longer than Slack takes, with a reason the page can show, and keeps nothing', async () => {
    const { tab } = await startLocalHoldfast();

    const reply = await tab.post('/ui/message', {
      user: 'U0ALICE',
      channel: 'C0OPS',
      text: `<@U0HOLDFAST> ${'x'.repeat(50_000)}`,
    });

    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toEqual({
      ok: false,
      error: 'msg_too_long',
      message:
        'Not sent: this message is 50,014 characters long, and Slack takes at most 40,000. Shorten it and send it again.',
    });
    expect((await tab.state('U0ALICE')).messages).toEqual([]);
  });

  it('answers each direct message on its own, not the request before it', async () => {
    const { tab } = await startLocalHoldfast();
    const dm = (text: string) => tab.post('/ui/message', { user: 'U0ALICE', channel: 'D0ALICE', text });

    expect((await dm('run `echo first`')).status).toBe(200);
    await waitForState(
      tab,
      'U0ALICE',
      (state) => state.messages.find((message) => message.text.startsWith('Approval needed')),
      'the card for the first request',
    );
    expect((await dm('list files')).status).toBe(200);

    const listed = await waitForState(
      tab,
      'U0ALICE',
      (state) =>
        state.messages.find(
          (message) => message.user === 'U0HOLDFAST' && message.text.includes('`list_files`'),
        ),
      'an answer to the second message',
    );
    expect(listed.text).not.toContain('run_shell');
    const cards = (await tab.state('U0ALICE')).messages.filter((message) =>
      message.text.startsWith('Approval needed'),
    );
    expect(cards).toHaveLength(1);
  });
});

describe("local mode's demo working directory, on a fresh start", () => {
  it('has files for the README\'s "list files" and "read …" phrases to find', async () => {
    const { tab } = await startLocalHoldfast();
    const dm = (text: string) => tab.post('/ui/message', { user: 'U0ALICE', channel: 'D0ALICE', text });
    const answerWith = (text: string, what: string) =>
      waitForState(
        tab,
        'U0ALICE',
        (state) =>
          state.messages.find((message) => message.user === 'U0HOLDFAST' && message.text.includes(text)),
        what,
      );

    await dm('list files');
    const listed = await answerWith('`list_files` finished', 'the file list');
    expect(listed.text).toContain('README.md');
    expect(listed.text).toContain('notes.txt');
    await dm('read README.md');
    expect((await answerWith('Demo working directory', 'the README')).text).toContain('`read_file` finished');
    await dm('read notes.txt');
    expect((await answerWith('On-call notes', 'the notes')).text).toContain('`read_file` finished');
  });
});

/** A workspace whose holdfast is not there (stopped, or still starting), and a tab signed in to it. */
async function unreachableWorkspace() {
  const workspace = await startLocalWorkspace({
    port: 0,
    databasePath: tempDir('holdfast-unreachable-').file('local-workspace.db'),
    signingSecret: 'u'.repeat(32),
    botToken: 'xoxb-local-unreachable-test',
    // Nothing listens here.
    deliverTo: 'http://127.0.0.1:9/slack/events',
    modelLabel: 'test',
    logger: createTestLogger().logger,
    now: Date.now,
  });
  onTestFinished(() => workspace.close());
  return signIn(workspace.url);
}

describe('local mode, when holdfast cannot be reached', () => {
  it('tells the page a click was not received, so the page keeps it instead of losing it', async () => {
    const tab = await unreachableWorkspace();

    const reply = await tab.post('/ui/click', {
      user: 'U0BOB',
      channel: 'C0OPS',
      message_ts: '1700000000.000100',
      action_id: 'holdfast.approval.allow',
      value: 'apr_1',
    });

    expect(JSON.parse(reply.text)).toMatchObject({ ok: false, error: 'holdfast_unreachable' });
  });

  it('tells the page a message was posted but not received, so it can say so', async () => {
    const tab = await unreachableWorkspace();

    const reply = await tab.post('/ui/message', { user: 'U0ALICE', channel: 'D0ALICE', text: 'hello?' });

    expect(JSON.parse(reply.text)).toMatchObject({ ok: true, delivered: false });
  });
});
