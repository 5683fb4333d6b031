/**
 * `npm run bench`: what one approval cycle costs, and what 10,000 waiting conversations cost.
 *
 * Everything is measured side by side in this one run (these machines are noisy, so only ratios between
 * figures taken together mean anything): the full cycle against a bare better-sqlite3 commit with the
 * same pragmas, and suspended-in-SQLite against parked-in-memory conversations.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { buildSystemPrompt } from '../src/agent/system-prompt.js';
import type { AdmissionLimits } from '../src/store/rules/admit-turn.js';
import { benchNoopTool, buildHoldfastHarness } from './holdfast-cycle.js';
import { measureLiveAnswers } from './live-answer.js';
import { fixed, percentile } from './percentile.js';

const cycles = Number(process.env.BENCH_CYCLES ?? 500);
const parkedConversations = Number(process.env.BENCH_PARKED ?? 10_000);
const rawCommits = Number(process.env.BENCH_RAW_COMMITS ?? 2_000);
const liveAnswers = Number(process.env.BENCH_LIVE_ANSWERS ?? 20);
const synchronous = (process.env.BENCH_SYNCHRONOUS ?? 'FULL') as 'FULL' | 'NORMAL' | 'OFF';
const teamId = 'TBENCH';
const channelId = 'CBENCH';

const gc = globalThis.gc;
if (!gc) {
  process.stderr.write('Run with --expose-gc (npm run bench does).\n');
  process.exit(1);
}

const workdir = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-bench-'));
process.on('exit', () => fs.rmSync(workdir, { recursive: true, force: true }));

const buildHarness = (file: string, admission?: AdmissionLimits) =>
  buildHoldfastHarness(file, { synchronous, admission });

function heapMb(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

async function measureCycles(): Promise<{
  p50: number;
  p99: number;
  commitsPerCycle: number;
  deliveriesPerCycle: number;
}> {
  const harness = buildHarness(path.join(workdir, 'cycle.db'));
  const warmup = Math.min(50, cycles);
  const durations: number[] = [];
  let commitsBefore = 0;
  let deliveriesBefore = 0;
  for (let i = 0; i < warmup + cycles; i++) {
    if (i === warmup) {
      await harness.settle();
      commitsBefore = harness.commits();
      deliveriesBefore = harness.deliveries();
    }
    const thread = `1700000000.${String(i).padStart(6, '0')}`;
    const started = performance.now();
    await harness.cycle(thread);
    if (i >= warmup) durations.push(performance.now() - started);
  }
  // Counted over the whole run: a delivery marker rides along in whichever commit comes next (often the
  // next cycle's), and the last ones commit here.
  await harness.settle();
  const commits = harness.commits() - commitsBefore;
  const deliveries = harness.deliveries() - deliveriesBefore;
  await harness.close();
  return {
    p50: percentile(durations, 50),
    p99: percentile(durations, 99),
    commitsPerCycle: commits / cycles,
    deliveriesPerCycle: deliveries / cycles,
  };
}

/** The floor: one single-row commit on a bare connection with holdfast's pragmas. */
function measureRawCommits(): { p50: number; p99: number } {
  const db = new Database(path.join(workdir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
  const durations: number[] = [];
  for (let i = 0; i < rawCommits; i++) {
    const started = performance.now();
    insert.run(`row ${i}`);
    durations.push(performance.now() - started);
  }
  db.close();
  return { p50: percentile(durations, 50), p99: percentile(durations, 99) };
}

/** 10,000 conversations waiting on approval, held by nothing but their SQLite rows. */
async function measureSuspended(): Promise<number> {
  // One requester asks for all of them: the per-person limit on unfinished work would refuse most.
  const harness = buildHarness(path.join(workdir, 'suspended.db'), {
    perThread: 5,
    perUser: Number.MAX_SAFE_INTEGER,
  });
  // Warm every code path and cache before the baseline, so the delta is the conversations alone.
  for (let i = 0; i < 600; i++) await harness.mention(`1600000000.${String(i).padStart(6, '0')}`);
  const baseline = heapMb();
  for (let i = 0; i < parkedConversations; i++) {
    await harness.mention(`1700000000.${String(i).padStart(6, '0')}`);
  }
  await harness.runtime.idle();
  const grown = heapMb() - baseline;
  const pending = harness.pendingApprovals();
  if (pending !== parkedConversations + 600) {
    throw new Error(`expected ${parkedConversations + 600} pending approvals, found ${pending}`);
  }
  await harness.close();
  return grown;
}

/**
 * The usual way: each waiting conversation is a pending promise whose closure holds its agent and
 * transcript until someone clicks. Same messages as holdfast stores, nothing more.
 */
function measurePinned(): { grown: number; release: () => void } {
  const baseline = heapMb();
  const waiting = new Map<string, (decision: 'allow' | 'deny') => void>();
  const parked: Promise<string>[] = [];
  for (let i = 0; i < parkedConversations; i++) {
    const thread = `1700000000.${String(i).padStart(6, '0')}`;
    const agent = {
      conversationId: `${teamId}:${channelId}:${thread}`,
      tools: [benchNoopTool],
      systemPrompt: buildSystemPrompt({ botName: 'holdfast', toolNames: ['noop'] }),
    };
    const messages = [
      { role: 'system', content: agent.systemPrompt },
      { role: 'user', content: '@requester: restart web-1' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'noop', arguments: `{"target":"web-1"}` } },
        ],
      },
    ];
    parked.push(
      new Promise<'allow' | 'deny'>((resolve) => waiting.set(agent.conversationId, resolve)).then(
        (decision) => `${agent.conversationId} ${decision} after ${messages.length} messages`,
      ),
    );
  }
  const grown = heapMb() - baseline;
  return {
    grown,
    release() {
      for (const resolve of waiting.values()) resolve('deny');
      waiting.clear();
      parked.length = 0;
    },
  };
}

async function main(): Promise<void> {
  const raw = measureRawCommits();
  const cycle = await measureCycles();
  const suspended = await measureSuspended();
  const pinned = measurePinned();
  pinned.release();
  const live = await measureLiveAnswers(liveAnswers);

  // Every commit of the cycle, the outbox's included, counts against its budget.
  const budget = 3 * cycle.commitsPerCycle * raw.p99;
  const ratio = pinned.grown / Math.max(suspended, 0.01);
  const results = {
    measured_at: new Date().toISOString(),
    node: process.version,
    synchronous,
    cycles,
    cycle_p50_ms: fixed(cycle.p50),
    cycle_p99_ms: fixed(cycle.p99),
    commits_per_cycle: fixed(cycle.commitsPerCycle, 2),
    deliveries_per_cycle: fixed(cycle.deliveriesPerCycle, 2),
    raw_commit_p50_ms: fixed(raw.p50),
    raw_commit_p99_ms: fixed(raw.p99),
    cycle_budget_ms: fixed(budget),
    conversations: parkedConversations,
    suspended_10k_heap_mb: fixed(suspended, 2),
    pinned_10k_heap_mb: fixed(pinned.grown, 2),
    pinned_over_suspended: fixed(ratio, 1),
    live_answers: live.answers,
    live_first_text_p50_ms: fixed(live.firstTextP50Ms),
    live_first_text_p99_ms: fixed(live.firstTextP99Ms),
    live_slack_calls_per_answer: fixed(live.slackCallsPerAnswer, 1),
    live_stream_calls_per_answer: fixed(live.streamCallsPerAnswer, 1),
    targets: {
      cycle_within_budget: cycle.p99 <= budget,
      commits_per_cycle_at_most_10: cycle.commitsPerCycle <= 10,
      suspended_under_5_mb: suspended < 5,
      pinned_over_suspended_at_least_10: ratio >= 10,
    },
  };

  const table = [
    ['cycle p50 / p99', `${results.cycle_p50_ms} ms / ${results.cycle_p99_ms} ms`],
    ['commits per cycle (outbox included)', String(results.commits_per_cycle)],
    ['deliveries per cycle (card, rewrite, answer)', String(results.deliveries_per_cycle)],
    ['raw commit p50 / p99', `${results.raw_commit_p50_ms} ms / ${results.raw_commit_p99_ms} ms`],
    ['cycle budget (3 × all commits × raw p99)', `${results.cycle_budget_ms} ms`],
    [`${parkedConversations} suspended (SQLite only)`, `${results.suspended_10k_heap_mb} MB heap`],
    [`${parkedConversations} parked in memory`, `${results.pinned_10k_heap_mb} MB heap`],
    ['pinned / suspended', `${results.pinned_over_suspended}×`],
    [
      'mention → first streamed text p50 / p99',
      `${results.live_first_text_p50_ms} ms / ${results.live_first_text_p99_ms} ms`,
    ],
    [
      'Slack calls per streamed answer (stream calls)',
      `${results.live_slack_calls_per_answer} (${results.live_stream_calls_per_answer})`,
    ],
  ];
  const width = Math.max(...table.map(([label]) => (label ?? '').length));
  for (const [label, value] of table) process.stdout.write(`${(label ?? '').padEnd(width)}  ${value}\n`);
  for (const [target, met] of Object.entries(results.targets)) {
    process.stdout.write(`${met ? 'met   ' : 'MISSED'}  ${target}\n`);
  }
  const out = path.join(import.meta.dirname, 'results.json');
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), out)}\n`);
}

await main();
