import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { auditCommand } from '../../../src/audit/audit-command.js';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { countingShellTool, startSlackHarness, waitForCard } from '../slack/slack-harness.js';
import { denyWithReason } from '../slack/slack-modals.js';
import { runToEnd } from '../startup/run-holdfast.js';

function capture(): Writable & { readonly text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return Object.assign(stream, { text: () => text });
}

async function audit(databasePath: string, ...args: string[]) {
  const stdout = capture();
  const stderr = capture();
  const code = await auditCommand(args, {
    env: { HOLDFAST_DB: databasePath },
    cwd: process.cwd(),
    stdout,
    stderr,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

interface ExportedRow {
  id: number;
  at: number;
  time: string;
  kind: string;
  actor: string;
  hash: string;
  previousHash: string | null;
}

/** Two approve-and-run cycles through the real receiver, then the app stopped: the trail they left. */
async function trailOfTwoApprovals(): Promise<string> {
  const { tool } = countingShellTool();
  const model = new ScriptedChatModel([
    reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_web']),
    reply.text('Web restarted.'),
    reply.toolCalls(['ops_shell', { command: 'systemctl restart db' }, 'call_db']),
    reply.text('Database restarted.'),
  ]);
  const slack = await startSlackHarness({ model, tools: [tool] });
  for (const [service, answer] of [
    ['web', 'Web restarted.'],
    ['db', 'Database restarted.'],
  ] as const) {
    const threadTs = await slack.mention(`please restart ${service}`);
    const card = await waitForCard(slack.api, threadTs);
    if (service === 'web') await slack.click('allow', card);
    else await denyWithReason(slack, card);
    if (service === 'web') await slack.api.waitFor('chat.postMessage', (call) => call.params.text === answer);
    await slack.settle();
  }
  await slack.stop();
  return slack.databasePath;
}

function exec(databasePath: string, sql: string): void {
  const db = new Database(databasePath);
  try {
    db.prepare(sql).run();
  } finally {
    db.close();
  }
}

describe('holdfast audit', () => {
  it('exports the trail of an approval as JSON Lines, each row linked to the one before it', async () => {
    const databasePath = await trailOfTwoApprovals();

    const exported = await audit(databasePath, 'export');

    expect(exported).toMatchObject({ code: 0, stderr: '' });
    const rows = exported.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as ExportedRow);
    expect(rows.map((row) => [row.kind, row.actor])).toEqual([
      ['approval.requested', 'U0ALICE'],
      ['approval.allowed', 'U0BOB'],
      ['approval.requested', 'U0ALICE'],
      ['approval.denied', 'U0BOB'],
    ]);
    expect(rows[1]).toMatchObject({ actor: 'U0BOB', previousHash: rows[0]!.hash });
    expect(rows[0]).toMatchObject({
      previousHash: null,
      time: new Date(rows[0]!.at).toISOString(),
    });
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(String(row.hash)))).toBe(true);

    const since = await audit(databasePath, 'export', '--since', rows[2]!.time);
    const recent = since.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number });
    expect(recent.map((row) => row.id)).toEqual(
      rows.filter((row) => row.at >= rows[2]!.at).map((row) => row.id),
    );
  });

  it('verifies an untouched trail and exits 0', async () => {
    const databasePath = await trailOfTwoApprovals();
    const verified = await audit(databasePath, 'verify');
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^audit trail intact: 4 rows, last row 4 with hash [0-9a-f]{64}\n$/);
  });

  it('names the row altered with a raw UPDATE, and exits 1', async () => {
    const databasePath = await trailOfTwoApprovals();
    exec(databasePath, `UPDATE audit_events SET actor = 'U0MALLORY' WHERE id = 2`);

    const verified = await audit(databasePath, 'verify');

    expect(verified.code).toBe(1);
    expect(verified.stdout).toBe(
      'audit trail broken: audit row 2 was altered: its contents no longer match its hash (found after checking 2 rows)\n',
    );
  });

  it('names the gap a deleted row leaves, and exits 1', async () => {
    const databasePath = await trailOfTwoApprovals();
    exec(databasePath, 'DELETE FROM audit_events WHERE id = 2');

    const verified = await audit(databasePath, 'verify');

    expect(verified.code).toBe(1);
    expect(verified.stdout).toMatch(/audit rows between row 1 and row 3 were removed/);
  });

  it('runs as npm run audit -- verify, exiting 1 on a broken trail', async () => {
    const databasePath = await trailOfTwoApprovals();
    exec(databasePath, `UPDATE audit_events SET data_json = '{"tool":"harmless"}' WHERE id = 3`);

    const run = await runToEnd({
      command: ['npm', 'run', '--silent', 'audit', '--', 'verify'],
      env: { HOLDFAST_DB: databasePath },
    });

    expect(run).toMatchObject({ code: 1, stderr: '' });
    expect(run.stdout).toMatch(/audit row 3 was altered/);
  });
});
