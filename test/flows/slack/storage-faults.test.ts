import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { breakWalFile } from '../../support/break-wal-file.js';
import {
  channel,
  countingShellTool,
  mentionEvent,
  people,
  readRows,
  startSlackHarness,
  userTs,
  waitForCard,
} from './slack-harness.js';

/**
 * Makes holdfast's database unwritable from outside, the way another program can: a second connection
 * takes the write lock and keeps it past holdfast's busy_timeout, so every write holdfast tries fails
 * (SQLITE_BUSY, nothing written) until the lock is let go, while reads go on. A full disk is the same
 * fault to holdfast (nothing written, the write refused), but `PRAGMA max_page_count`, the one way to
 * fill a database without a small filesystem, is set per connection and holdfast's own connection is
 * out of a test's reach.
 */
function lockDatabase(databasePath: string): { release(): void } {
  const db = new Database(databasePath, { timeout: 0 });
  db.exec('BEGIN EXCLUSIVE');
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    db.exec('ROLLBACK');
    db.close();
  };
  onTestFinished(release);
  return { release };
}

const couldNotRecord = /could not record your decision/;

describe('a database that stops taking writes', () => {
  it('during a click: the approver is told, the card stays, and the same click works once it clears', async () => {
    const { tool, runs } = countingShellTool();
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([
        reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_restart']),
        reply.text('web restarted.'),
      ]),
      tools: [tool],
    });
    const threadTs = await slack.mention('restart web please');
    const card = await waitForCard(slack.api, threadTs);
    await slack.settle();

    const lock = lockDatabase(slack.databasePath);
    expect((await slack.click('allow', card)).status).toBe(200);
    const told = await slack.api.waitFor(
      'chat.postEphemeral',
      (call) => couldNotRecord.test(String(call.params.text)),
      15_000,
    );

    expect(told.params).toMatchObject({ channel, user: people.bob, thread_ts: threadTs });
    expect(slack.api.message(channel, card.ts)?.updates).toBe(0);
    expect(runs).toEqual([]);
    expect(readRows(slack.databasePath, 'SELECT decision FROM approvals')).toEqual([{ decision: null }]);

    // The fault clears; nobody restarts anything.
    lock.release();
    expect((await slack.click('allow', card)).status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'web restarted.');
    await slack.settle();

    expect(runs).toEqual(['systemctl restart web']);
    expect(slack.api.message(channel, card.ts)?.updates).toBe(1);
    expect(readRows(slack.databasePath, 'SELECT decision, decided_by FROM approvals')).toEqual([
      { decision: 'allowed', decided_by: people.bob },
    ]);
  });

  it('during a mention: Slack is asked to redeliver, and the redelivery is answered once it clears', async () => {
    const model = new ScriptedChatModel([reply.text('The disk is 41% full.')]);
    const slack = await startSlackHarness({ model });
    const ts = userTs();
    const mention = {
      type: 'app_mention',
      user: people.alice,
      text: `<@${slack.api.identity.botUserId}> how full is the disk?`,
      ts,
      channel,
    };

    const lock = lockDatabase(slack.databasePath);
    const refused = await slack.sendEvent(mention, { eventId: 'Ev0DISKFULL' });

    // Any answer but a 2xx makes Slack send the event again.
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(readRows(slack.databasePath, 'SELECT id FROM turns')).toEqual([]);
    expect(model.calls).toHaveLength(0);

    // Slack sends the same event again; by then the fault has cleared, without a restart.
    lock.release();
    const redelivered = await slack.sendEvent(mention, { eventId: 'Ev0DISKFULL', retryNum: 1 });
    expect(redelivered.status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === ts);
    await slack.settle();

    expect(slack.api.thread(channel, ts).map((message) => message.text)).toEqual(['The disk is 41% full.']);
    expect(readRows(slack.databasePath, 'SELECT status FROM turns')).toEqual([{ status: 'completed' }]);
  });

  it('while an answer is posted: once it clears, the answer is on record and the thread goes on at once', async () => {
    const model = new ScriptedChatModel([
      reply.text('The disk is 41% full.'),
      reply.text('It was 40% an hour ago.'),
    ]);
    const slack = await startSlackHarness({ model, delivery: { backoffMs: () => 10 } });
    const posted = slack.api.holdNext(
      'chat.postMessage',
      (call) => call.params.text === 'The disk is 41% full.',
    );

    const threadTs = await slack.mention('how full is the disk?');
    await posted.arrived;
    // Slack has the answer; holdfast hears back while it cannot write that down.
    const lock = lockDatabase(slack.databasePath);
    posted.release();
    await slack.waitForLog(
      (entry) => entry.msg === 'could not record delivered messages yet; retrying',
      30_000,
    );
    lock.release();

    await slack.reply(threadTs, 'and an hour ago?');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'It was 40% an hour ago.');
    await slack.settle();

    expect(slack.api.thread(channel, threadTs).map((message) => message.text)).toEqual([
      'The disk is 41% full.',
      'It was 40% an hour ago.',
    ]);
    expect(readRows(slack.databasePath, 'SELECT status FROM outbox ORDER BY id')).toEqual([
      { status: 'sent' },
      { status: 'sent' },
    ]);
  }, 60_000);

  it('when a write fails on disk: nothing more is written though the disk answers again, /health asks for a restart, and the restart recovers', async () => {
    const model = new ScriptedChatModel([reply.text('The disk is 41% full.'), reply.text('Still 41%.')]);
    // Each message is kept before it is acknowledged, so the failing write refuses the first mention itself.
    const slack = await startSlackHarness({ model });
    const origin = new URL(slack.eventsUrl).origin;
    const mention = (ts: string) => mentionEvent(slack.api.identity.botUserId, ts);
    const failing = breakWalFile(slack.databasePath);

    const first = userTs();
    expect((await slack.sendEvent(mention(first), { eventId: 'Ev0FSYNC1' })).status).toBeGreaterThanOrEqual(
      400,
    );
    // The disk syncs again, but what it dropped is not known: holdfast writes nothing more.
    failing.restore();
    const second = userTs();
    expect((await slack.sendEvent(mention(second), { eventId: 'Ev0FSYNC2' })).status).toBeGreaterThanOrEqual(
      400,
    );
    expect(readRows(slack.databasePath, 'SELECT trigger_ts FROM turns')).not.toContainEqual({
      trigger_ts: second,
    });
    expect(model.calls).toHaveLength(0);

    const health = await fetch(`${origin}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ ok: false, error: expect.stringMatching(/SQLITE_IOERR/) });
    expect((await fetch(`${origin}/ready`)).status).toBe(503);

    // A restart opens the file afresh; Slack's redelivery is then answered.
    await slack.restart({ model });
    const redelivered = await slack.sendEvent(mention(second), { eventId: 'Ev0FSYNC2', retryNum: 1 });
    expect(redelivered.status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === second);
    expect((await fetch(`${new URL(slack.eventsUrl).origin}/health`)).status).toBe(200);
  });
});
