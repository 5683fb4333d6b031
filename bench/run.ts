/**
 * `npm run bench`: what one approval cycle costs (commits, WAL pages, on short and long threads), what
 * 10,000 waiting conversations cost, and how long boot takes on a big backlog.
 *
 * Everything is measured side by side in this one run (these machines are noisy, so only ratios between
 * figures taken together mean anything): the full cycle against a bare better-sqlite3 commit with the
 * same pragmas, suspended-in-SQLite against parked-in-memory conversations, and a Slack call's CPU through
 * fetch against holdfast's transport.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { newFilePageSize } from '../src/store/open-database.js';
import { measureBoot } from './boot.js';
import { countRoundTrips } from './count-round-trips.js';
import { buildHoldfastHarness, type HoldfastHarness } from './holdfast-cycle.js';
import { measureLiveAnswers } from './live-answer.js';
import { measureThreadLengths } from './long-thread.js';
import { fixed, percentile } from './percentile.js';
import { buildPostgresHarness, measurePostgresRawCommits } from './postgres-cycle.js';
import { printResults } from './print-results.js';
import { measurePinned, measureSuspended } from './waiting-conversations.js';
import { readWalFrames } from './wal-frames.js';

const cycles = Number(process.env.BENCH_CYCLES ?? 500);
const parkedConversations = Number(process.env.BENCH_PARKED ?? 10_000);
const rawCommits = Number(process.env.BENCH_RAW_COMMITS ?? 2_000);
const walCycles = Number(process.env.BENCH_WAL_CYCLES ?? 200);
const threadCycles = Number(process.env.BENCH_THREAD_CYCLES ?? 100);
const threadLengths = (process.env.BENCH_THREAD_LENGTHS ?? '10,1000,5000').split(',').map(Number);
const bootPending = Number(process.env.BENCH_BOOT_PENDING ?? 100_000);
const bootOverdue = Number(process.env.BENCH_BOOT_OVERDUE ?? 10_000);
const liveAnswers = Number(process.env.BENCH_LIVE_ANSWERS ?? 20);
const synchronous = (process.env.BENCH_SYNCHRONOUS ?? 'FULL') as 'FULL' | 'NORMAL' | 'OFF';
/** With a server here, the cycle runs on PostgreSQL too, beside SQLite, in the same run. */
const postgresUrl = process.env.BENCH_POSTGRES_URL?.trim() || undefined;

const gc = globalThis.gc;
if (!gc) {
  process.stderr.write('Run with --expose-gc (npm run bench does).\n');
  process.exit(1);
}

const workdir = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-bench-'));
process.on('exit', () => fs.rmSync(workdir, { recursive: true, force: true }));

const buildHarness = (file: string) => buildHoldfastHarness(file, { synchronous });

interface CycleFigures {
  p50: number;
  p99: number;
  commitsPerCycle: number;
  deliveriesPerCycle: number;
}

async function measureCycles(
  harness: HoldfastHarness = buildHarness(path.join(workdir, 'cycle.db')),
  onWarm?: () => void,
): Promise<CycleFigures> {
  const warmup = Math.min(50, cycles);
  const durations: number[] = [];
  let commitsBefore = 0;
  let deliveriesBefore = 0;
  for (let i = 0; i < warmup + cycles; i++) {
    if (i === warmup) {
      await harness.settle();
      commitsBefore = harness.commits();
      deliveriesBefore = harness.deliveries();
      onWarm?.();
    }
    const thread = `1700000000.${String(i).padStart(6, '0')}`;
    const started = performance.now();
    await harness.cycle(thread);
    if (i >= warmup) durations.push(performance.now() - started);
  }
  // Counted over the whole run: a card's rewrite and its recording carry on beside the next cycle. So the
  // count stops at the last cycle's answer, before settling commits what the last cycle left.
  const commits = harness.commits() - commitsBefore;
  await harness.settle();
  const deliveries = harness.deliveries() - deliveriesBefore;
  await harness.close();
  return {
    p50: percentile(durations, 50),
    p99: percentile(durations, 99),
    commitsPerCycle: commits / cycles,
    deliveriesPerCycle: deliveries / cycles,
  };
}

/**
 * What the cycle writes to disk: pages appended to the WAL (each a page-size write, fsynced with its
 * commit) and the commits among them, read from the log itself, so they count whatever code wrote them.
 */
async function measureWal(): Promise<{
  pagesPerCycle: number;
  kibPerCycle: number;
  walCommitsPerCycle: number;
}> {
  const file = path.join(workdir, 'wal.db');
  const harness = buildHoldfastHarness(file, { synchronous, keepWal: true });
  for (let i = 0; i < 20; i++) await harness.cycle(`1600000000.${String(i).padStart(6, '0')}`);
  await harness.settle();
  const before = readWalFrames(file);
  for (let i = 0; i < walCycles; i++) await harness.cycle(`1700000000.${String(i).padStart(6, '0')}`);
  // Commits up to the last answer, as `measureCycles` counts them; pages once the last markers are in.
  const atLastAnswer = readWalFrames(file);
  await harness.settle();
  const after = readWalFrames(file);
  await harness.close();
  return {
    pagesPerCycle: (after.frames - before.frames) / walCycles,
    kibPerCycle: (after.bytes - before.bytes) / 1024 / walCycles,
    walCommitsPerCycle: (atLastAnswer.commits - before.commits) / walCycles,
  };
}

/** The floor: one single-row commit on a bare connection with holdfast's pragmas. */
function measureRawCommits(): { p50: number; p99: number } {
  const db = new Database(path.join(workdir, 'raw.db'));
  db.pragma(`page_size = ${newFilePageSize}`);
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

/** The same cycle and its floor on PostgreSQL; the raw commits are taken right before, like SQLite's. */
async function measurePostgres(url: string, trips?: ReturnType<typeof countRoundTrips>) {
  const raw = await measurePostgresRawCommits(url, rawCommits);
  const cycle = await measureCycles(
    await buildPostgresHarness(url, { wrapStore: trips?.wrap }),
    trips?.reset,
  );
  const floor = cycle.commitsPerCycle * raw.p50;
  return {
    cycle_p50_ms: fixed(cycle.p50),
    cycle_p99_ms: fixed(cycle.p99),
    commits_per_cycle: fixed(cycle.commitsPerCycle, 2),
    deliveries_per_cycle: fixed(cycle.deliveriesPerCycle, 2),
    raw_commit_p50_ms: fixed(raw.p50),
    raw_commit_p99_ms: fixed(raw.p99),
    commit_floor_ms: fixed(floor),
    cycle_over_floor: fixed(cycle.p50 / floor, 2),
    cycle_within_3x_floor: cycle.p50 <= 3 * floor,
  };
}

/**
 * `BENCH_ONLY=postgres`: the PostgreSQL cycle and its floor alone, with what each store operation sends
 * (round trips and statements per cycle); prints, writes no results file.
 */
async function mainPostgresOnly(url: string): Promise<void> {
  const trips = countRoundTrips();
  const postgres = await measurePostgres(url, trips);
  trips.restore();
  const rows = [...trips.costs()].sort(([, a], [, b]) => b.roundTrips - a.roundTrips);
  const total = rows.reduce(
    (sum, [, cost]) => ({
      roundTrips: sum.roundTrips + cost.roundTrips,
      statements: sum.statements + cost.statements,
    }),
    { roundTrips: 0, statements: 0 },
  );
  const perCycle = (value: number) => String(fixed(value / cycles, 2));
  process.stdout.write(`${JSON.stringify(postgres, null, 2)}\n`);
  process.stdout.write(
    `round trips / statements per cycle: ${perCycle(total.roundTrips)} / ${perCycle(total.statements)}\n`,
  );
  for (const [operation, cost] of rows) {
    process.stdout.write(
      `  ${operation.padEnd(28)} calls ${perCycle(cost.calls).padStart(6)}  round trips ${perCycle(cost.roundTrips).padStart(6)}  statements ${perCycle(cost.statements).padStart(6)}\n`,
    );
  }
}

async function main(): Promise<void> {
  if (process.env.BENCH_ONLY?.trim() === 'postgres') {
    if (!postgresUrl) throw new Error('BENCH_ONLY=postgres needs BENCH_POSTGRES_URL');
    return mainPostgresOnly(postgresUrl);
  }
  const raw = measureRawCommits();
  const cycle = await measureCycles();
  const wal = await measureWal();
  const threads = await measureThreadLengths(workdir, threadLengths, { cycles: threadCycles, synchronous });
  const shortest = threads[0];
  const longest = threads.at(-1);
  const boot = await measureBoot(workdir, { pending: bootPending, overdue: bootOverdue, synchronous });
  const postgres = postgresUrl ? await measurePostgres(postgresUrl) : undefined;
  const suspended = await measureSuspended(workdir, parkedConversations, synchronous);
  const pinned = measurePinned(parkedConversations);
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
    wal_pages_per_cycle: fixed(wal.pagesPerCycle, 2),
    wal_kib_per_cycle: fixed(wal.kibPerCycle, 1),
    wal_commits_per_cycle: fixed(wal.walCommitsPerCycle, 2),
    thread_length_series: threads.map((entry) => ({
      prior_messages: entry.priorMessages,
      cycle_p50_ms: fixed(entry.p50),
      cycle_p99_ms: fixed(entry.p99),
    })),
    longest_over_shortest_thread_p50: fixed((longest?.p50 ?? 0) / Math.max(shortest?.p50 ?? 1, 1e-6), 2),
    boot_pending_approvals: boot.pending,
    boot_overdue_approvals: boot.overdue,
    boot_database_mb: fixed(boot.databaseMb, 1),
    boot_ms: fixed(boot.bootMs, 1),
    boot_page_check_done_ms: fixed(boot.pageCheckMs, 1),
    boot_all_overdue_expired_ms: fixed(boot.expiredAllMs, 1),
    conversations: parkedConversations,
    suspended_10k_heap_mb: fixed(suspended, 2),
    pinned_10k_heap_mb: fixed(pinned.grown, 2),
    pinned_over_suspended: fixed(ratio, 1),
    ...(postgres ? { postgres } : {}),
    live_answers: live.answers,
    live_first_text_p50_ms: fixed(live.firstTextP50Ms),
    live_first_text_p99_ms: fixed(live.firstTextP99Ms),
    live_slack_calls_per_answer: fixed(live.slackCallsPerAnswer, 1),
    live_stream_calls_per_answer: fixed(live.streamCallsPerAnswer, 1),
    targets: {
      cycle_within_budget: cycle.p99 <= budget,
      commits_per_cycle_at_most_5: cycle.commitsPerCycle <= 5,
      flat_on_long_threads: (longest?.p50 ?? 0) <= 1.5 * (shortest?.p50 ?? 0),
      boot_under_1_s: boot.bootMs < 1_000,
      suspended_under_5_mb: suspended < 5,
      pinned_over_suspended_at_least_10: ratio >= 10,
      ...(postgres ? { postgres_cycle_within_3x_commit_floor: postgres.cycle_within_3x_floor } : {}),
    },
  };

  printResults(results);
  const out = path.join(import.meta.dirname, 'results.json');
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), out)}\n`);
}

await main();
