/**
 * `npm run bench:peers`: holdfast's approval cycle against the same cycle built with the OpenAI Agents
 * SDK and with LangGraph JS, in one process, interleaved cycle by cycle so the machine's noise falls on
 * all three alike. Same pragmas (WAL, `synchronous=FULL`, `BENCH_SYNCHRONOUS` overrides), same
 * zero-latency script (a tool call, then the answer), same no-op tool that needs approval.
 *
 * Commits are counted two ways. In the timed pass, each framework's better-sqlite3 connection is wrapped
 * (`countCommits`: every outermost transaction and every write statement outside one). In a second,
 * untimed pass each framework runs on a database whose WAL is never checkpointed, and the commit frames
 * SQLite wrote are read back from the WAL file (`readWalFrames`): that count does not depend on how a
 * framework issues its writes, and it gives the WAL pages each cycle writes too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { buildHoldfastHarness } from '../holdfast-cycle.js';
import { fixed, percentile } from '../percentile.js';
import { readWalFrames } from '../wal-frames.js';
import type { BuildCycleHarness } from './cycle-harness.js';
import { buildLangGraphHarness } from './langgraph-cycle.js';
import { openPeerDatabase } from './open-peer-database.js';
import { buildOpenAIAgentsHarness } from './openai-agents-cycle.js';

const cycles = Number(process.env.BENCH_CYCLES ?? 500);
const warmup = Math.min(50, cycles);
const walCycles = Number(process.env.BENCH_WAL_CYCLES ?? 100);
const synchronous = z.enum(['OFF', 'NORMAL', 'FULL', 'EXTRA']).parse(process.env.BENCH_SYNCHRONOUS ?? 'FULL');

const workdir = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-bench-peers-'));
process.on('exit', () => fs.rmSync(workdir, { recursive: true, force: true }));

const frameworks = {
  holdfast: (async (file, options) => buildHoldfastHarness(file, options)) satisfies BuildCycleHarness,
  openai_agents: buildOpenAIAgentsHarness,
  langgraph: buildLangGraphHarness,
} as const;
type Framework = keyof typeof frameworks;
const names = Object.keys(frameworks) as Framework[];
const labels: Record<Framework, string> = {
  holdfast: 'holdfast',
  openai_agents: 'OpenAI Agents SDK',
  langgraph: 'LangGraph JS',
};

const threadTs = (phase: number, i: number) => `${1_700_000_000 + phase}.${String(i).padStart(6, '0')}`;

interface Timed {
  readonly p50: number;
  readonly p99: number;
  readonly commitsPerCycle: number;
}

/** Every framework's cycles, one of each in turn (the order rotating), on its own database file. */
async function timedPass(): Promise<Record<Framework, Timed>> {
  const harnesses = Object.fromEntries(
    await Promise.all(
      names.map(async (name) => [
        name,
        await frameworks[name](path.join(workdir, `${name}.db`), { synchronous }),
      ]),
    ),
  ) as Record<Framework, Awaited<ReturnType<BuildCycleHarness>>>;
  const durations = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
    Framework,
    number[]
  >;
  const commitsBefore = Object.fromEntries(names.map((name) => [name, 0])) as Record<Framework, number>;
  for (let i = 0; i < warmup + cycles; i++) {
    if (i === warmup) {
      for (const name of names) {
        await harnesses[name].settle();
        commitsBefore[name] = harnesses[name].commits();
      }
    }
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length] as Framework;
      const started = performance.now();
      await harnesses[name].cycle(threadTs(0, i));
      if (i >= warmup) durations[name].push(performance.now() - started);
    }
  }
  // Commits are counted over the whole pass, not per cycle: holdfast's card rewrites and their recording
  // carry on beside the next cycle. So the count stops at the last cycle's answer, before settling commits
  // what the last cycle left.
  const commits = Object.fromEntries(names.map((name) => [name, 0])) as Record<Framework, number>;
  for (const name of names) {
    commits[name] = harnesses[name].commits() - commitsBefore[name];
    await harnesses[name].settle();
    await harnesses[name].close();
  }
  return Object.fromEntries(
    names.map((name) => [
      name,
      {
        p50: percentile(durations[name], 50),
        p99: percentile(durations[name], 99),
        commitsPerCycle: commits[name] / cycles,
      },
    ]),
  ) as Record<Framework, Timed>;
}

/** Commit frames and pages each cycle leaves in a WAL that is never checkpointed. */
async function walPass(
  name: Framework,
): Promise<{ commitsPerCycle: number; pagesPerCycle: number; kibPerCycle: number }> {
  const file = path.join(workdir, `${name}-wal.db`);
  const harness = await frameworks[name](file, { synchronous, keepWal: true });
  // Table creation and first-use writes are not the cycle.
  for (let i = 0; i < 10; i++) await harness.cycle(threadTs(1, i));
  await harness.settle();
  const before = readWalFrames(file);
  for (let i = 0; i < walCycles; i++) await harness.cycle(threadTs(2, i));
  // Commits up to the last answer, as the timed pass counts them; pages once the last markers are in.
  const atLastAnswer = readWalFrames(file);
  await harness.settle();
  const after = readWalFrames(file);
  await harness.close();
  return {
    commitsPerCycle: (atLastAnswer.commits - before.commits) / walCycles,
    pagesPerCycle: (after.frames - before.frames) / walCycles,
    kibPerCycle: (after.bytes - before.bytes) / 1024 / walCycles,
  };
}

/** The floor under every figure: one single-row commit with these pragmas, on this disk, now. */
function rawCommitP50(): number {
  const db = openPeerDatabase(path.join(workdir, 'raw.db'), { synchronous });
  db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
  const durations: number[] = [];
  for (let i = 0; i < 500; i++) {
    const started = performance.now();
    insert.run(`row ${i}`);
    durations.push(performance.now() - started);
  }
  db.close();
  return percentile(durations, 50);
}

function installedVersion(pkg: string): string {
  const manifest = path.join(import.meta.dirname, 'node_modules', pkg, 'package.json');
  return z.object({ version: z.string() }).parse(JSON.parse(fs.readFileSync(manifest, 'utf8'))).version;
}

async function main(): Promise<void> {
  const rawCommit = rawCommitP50();
  const timed = await timedPass();
  const wal = {} as Record<Framework, Awaited<ReturnType<typeof walPass>>>;
  for (const name of names) wal[name] = await walPass(name);
  const walOf = (name: Framework) => wal[name];

  const results: Record<string, unknown> = {
    measured_at: new Date().toISOString(),
    node: process.version,
    synchronous,
    cycles,
    raw_commit_p50_ms: fixed(rawCommit),
    versions: {
      '@openai/agents': installedVersion('@openai/agents'),
      '@langchain/langgraph': installedVersion('@langchain/langgraph'),
      '@langchain/langgraph-checkpoint-sqlite': installedVersion('@langchain/langgraph-checkpoint-sqlite'),
      '@langchain/core': installedVersion('@langchain/core'),
    },
  };
  for (const name of names) {
    results[`${name}_cycle_p50_ms`] = fixed(timed[name].p50);
    results[`${name}_cycle_p99_ms`] = fixed(timed[name].p99);
    results[`${name}_commits_per_cycle`] = fixed(timed[name].commitsPerCycle, 2);
    results[`${name}_wal_commits_per_cycle`] = fixed(walOf(name).commitsPerCycle, 2);
    results[`${name}_wal_pages_per_cycle`] = fixed(walOf(name).pagesPerCycle, 1);
    results[`${name}_wal_kib_per_cycle`] = fixed(walOf(name).kibPerCycle, 1);
  }
  const ratio = (a: number, b: number) => fixed(a / b, 2);
  results.holdfast_over_openai_agents_p50 = ratio(timed.holdfast.p50, timed.openai_agents.p50);
  results.holdfast_over_langgraph_p50 = ratio(timed.holdfast.p50, timed.langgraph.p50);
  results.targets = {
    // Issue 14: at most the OpenAI Agents SDK's p50 in the same run, at most 5 fsynced commits.
    cycle_p50_at_most_openai_agents: timed.holdfast.p50 <= timed.openai_agents.p50,
    commits_per_cycle_at_most_5: timed.holdfast.commitsPerCycle <= 5,
  };

  const rows = [
    ['', 'p50 ms', 'p99 ms', 'commits', 'WAL commits', 'WAL pages', 'WAL KiB', 'holdfast p50 ÷ this'],
    ...names.map((name) => [
      labels[name],
      timed[name].p50.toFixed(3),
      timed[name].p99.toFixed(3),
      timed[name].commitsPerCycle.toFixed(2),
      walOf(name).commitsPerCycle.toFixed(2),
      walOf(name).pagesPerCycle.toFixed(1),
      walOf(name).kibPerCycle.toFixed(1),
      `${(timed.holdfast.p50 / timed[name].p50).toFixed(2)}×`,
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)));
  process.stdout.write(
    `${cycles} cycles each after ${warmup} warm-up, interleaved; synchronous=${synchronous}; ${process.version}; ` +
      `a bare commit takes ${rawCommit.toFixed(3)} ms (p50)\n`,
  );
  for (const row of rows) process.stdout.write(`${line(row).join('  ')}\n`);
  process.stdout.write(
    '(commits per cycle: holdfast includes its outbox deliveries to a zero-latency Slack)\n',
  );
  for (const name of names) {
    if (Math.abs(timed[name].commitsPerCycle - walOf(name).commitsPerCycle) > 0.05)
      process.stdout.write(`note: ${labels[name]}'s wrapped-connection count and WAL count differ\n`);
  }
  for (const [target, met] of Object.entries(results.targets as Record<string, boolean>)) {
    process.stdout.write(`${met ? 'met   ' : 'MISSED'}  ${target}\n`);
  }
  const out = path.join(import.meta.dirname, '..', 'peers-results.json');
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), out)}\n`);
}

await main();
