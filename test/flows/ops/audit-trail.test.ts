import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { auditCommand } from '../../../src/audit/audit-command.js';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { auditRowHash } from '../../../src/store/rules/audit-chain.js';
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
    // The form closes before its decision is made: the card's rewrite says the denial is on record.
    else await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
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

function anchorOf(databasePath: string, id: number): string {
  const db = new Database(databasePath, { readonly: true });
  try {
    const row = db.prepare('SELECT hash FROM audit_events WHERE id = ?').get(id) as { hash: string };
    return `${id}:${row.hash}`;
  } finally {
    db.close();
  }
}

/** What someone who can write to the database would do: change the last row and recompute its hash. */
function rewriteLastRow(databasePath: string, id: number, actor: string): void {
  const db = new Database(databasePath);
  try {
    const row = db.prepare('SELECT * FROM audit_events WHERE id = ?').get(id) as {
      at: number;
      kind: string;
      approval_id: string | null;
      conversation_id: string | null;
      data_json: string;
      previous_hash: string | null;
    };
    const hash = auditRowHash(row.previous_hash, {
      id,
      at: row.at,
      actor,
      kind: row.kind,
      approvalId: row.approval_id,
      conversationId: row.conversation_id,
      data: JSON.parse(row.data_json) as Record<string, unknown>,
    });
    db.prepare('UPDATE audit_events SET actor = ?, hash = ? WHERE id = ?').run(actor, hash, id);
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

  it('checks the trail still holds an anchor printed by an earlier verify', async () => {
    const databasePath = await trailOfTwoApprovals();
    const earlier = await audit(databasePath, 'verify');
    const [, id, hash] = /last row (\d+) with hash ([0-9a-f]{64})/.exec(earlier.stdout) ?? [];

    const verified = await audit(databasePath, 'verify', '--anchor', `${id}:${hash}`);

    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(
      /^audit trail intact: 4 rows, last row 4 with hash [0-9a-f]{64}; anchor row 4 matches\n$/,
    );
  });

  it('shows rows removed from the end, which the chain alone cannot, against an anchor', async () => {
    const databasePath = await trailOfTwoApprovals();
    const anchor = anchorOf(databasePath, 4);
    exec(databasePath, 'DELETE FROM audit_events WHERE id >= 3');

    const unanchored = await audit(databasePath, 'verify');
    const anchored = await audit(databasePath, 'verify', '--anchor', anchor);

    expect(unanchored).toMatchObject({ code: 0 });
    expect(unanchored.stdout).toMatch(/^audit trail intact: 2 rows/);
    expect(anchored.code).toBe(1);
    expect(anchored.stdout).toBe(
      'audit trail broken: audit row 4, the anchor, is gone: rows were removed from the end of the trail (found after checking 2 rows)\n',
    );
  });

  it('shows a row rewritten with its hash recomputed, against an anchor', async () => {
    const databasePath = await trailOfTwoApprovals();
    const anchor = anchorOf(databasePath, 4);
    rewriteLastRow(databasePath, 4, 'U0MALLORY');

    const unanchored = await audit(databasePath, 'verify');
    const anchored = await audit(databasePath, 'verify', '--anchor', anchor);

    expect(unanchored.code).toBe(0);
    expect(anchored.code).toBe(1);
    expect(anchored.stdout).toMatch(
      /^audit trail broken: audit row 4 no longer has the anchor's hash: it, or a row before it, was rewritten/,
    );
  });

  it('refuses an anchor that is not <row id>:<hash>, and one given to export, with exit 2', async () => {
    const databasePath = await trailOfTwoApprovals();

    const malformed = await audit(databasePath, 'verify', '--anchor', '4:nothex');
    const onExport = await audit(databasePath, 'export', '--anchor', anchorOf(databasePath, 4));

    expect(malformed).toMatchObject({ code: 2, stdout: '' });
    expect(malformed.stderr).toMatch(/--anchor 4:nothex is not <row id>:<hash>/);
    expect(onExport).toMatchObject({ code: 2, stdout: '' });
    expect(onExport.stderr).toMatch(/--anchor goes with verify/);
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
