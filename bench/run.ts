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
import pino from 'pino';
import { z } from 'zod';
import type { ChatModel, ChatRequest, ModelReply } from '../src/agent/chat-model.js';
import { buildSystemPrompt } from '../src/agent/system-prompt.js';
import { argsFingerprint } from '../src/approvals/args-fingerprint.js';
import { policySchema } from '../src/approvals/policy.js';
import type { DeliveryPort } from '../src/outbox/delivery-port.js';
import type { OutboxEntry } from '../src/outbox/outbox-message.js';
import { Runtime } from '../src/runtime/create-runtime.js';
import { silentObserver } from '../src/runtime/turn-observer.js';
import { conversationId } from '../src/store/conversation-id.js';
import { createSqliteStore, openDatabase } from '../src/store/index.js';
import { defineTool } from '../src/tools/define-tool.js';

const cycles = Number(process.env.BENCH_CYCLES ?? 500);
const parkedConversations = Number(process.env.BENCH_PARKED ?? 10_000);
const rawCommits = Number(process.env.BENCH_RAW_COMMITS ?? 2_000);
const synchronous = (process.env.BENCH_SYNCHRONOUS ?? 'FULL') as 'FULL' | 'NORMAL' | 'OFF';
const teamId = 'TBENCH';
const channelId = 'CBENCH';
const approver = 'UAPPROVER';
const requester = 'UREQUESTER';

const gc = globalThis.gc;
if (!gc) {
  process.stderr.write('Run with --expose-gc (npm run bench does).\n');
  process.exit(1);
}

const workdir = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-bench-'));
process.on('exit', () => fs.rmSync(workdir, { recursive: true, force: true }));

/** Zero latency and no recording: the benchmark measures holdfast, not the model or the script. */
const instantModel: ChatModel = {
  async complete(request: ChatRequest): Promise<ModelReply> {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { content: 'The no-op ran. Done.', toolCalls: [] };
    return {
      content: null,
      toolCalls: [{ id: 'call_1', name: 'noop', arguments: '{"target":"web-1"}' }],
    };
  },
};

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing, after asking.',
  parameters: z.object({ target: z.string() }),
  permission: (args) => ({ type: 'ask', permissionType: 'noop', summary: `noop ${args.target}` }),
  execute: () => 'ok',
});

/** Counts commits: every outermost transaction, and every write statement run outside one. */
function countCommits(db: Database.Database): { readonly count: () => number } {
  let commits = 0;
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const statement = prepare(source);
    if (!statement.reader) {
      const run = statement.run.bind(statement);
      statement.run = ((...args: unknown[]) => {
        const outermost = !db.inTransaction;
        const result = run(...(args as []));
        if (outermost) commits++;
        return result;
      }) as typeof statement.run;
    }
    return statement;
  }) as typeof db.prepare;
  const transaction = db.transaction.bind(db);
  db.transaction = ((work: (...args: unknown[]) => unknown) => {
    const wrapped = transaction(work);
    const counted =
      (variant: (...args: unknown[]) => unknown) =>
      (...args: unknown[]) => {
        const outermost = !db.inTransaction;
        const result = variant(...args);
        if (outermost) commits++;
        return result;
      };
    const fn = counted(wrapped) as typeof wrapped;
    fn.deferred = counted(wrapped.deferred) as typeof wrapped.deferred;
    fn.immediate = counted(wrapped.immediate) as typeof wrapped.immediate;
    fn.exclusive = counted(wrapped.exclusive) as typeof wrapped.exclusive;
    return fn;
  }) as typeof db.transaction;
  return { count: () => commits };
}

interface Harness {
  readonly runtime: Runtime;
  readonly commits: () => number;
  /** Parts the outbox sent (cards, card rewrites, answer messages). */
  readonly deliveries: () => number;
  readonly pendingApprovals: () => number;
  /** Mention → the turn suspends and its card is delivered; resolves with the request id. */
  mention(thread: string): Promise<string>;
  /** The approver taps Allow; resolves when the answer is delivered. */
  approve(thread: string, requestId: string): Promise<void>;
  close(): Promise<void>;
}

/** Slack at zero latency: every part lands at once, and a test waits for the part it cares about. */
function instantSlack() {
  let sent = 0;
  const waiters = new Map<string, () => void>();
  /** Where each request's card landed, as Slack would bring it back in the click payload. */
  const cards = new Map<string, string>();
  const port: DeliveryPort = {
    async plan() {
      return ['message'];
    },
    async sendPart(entry: OutboxEntry, part) {
      sent += 1;
      const ts = `${entry.id}.${part.index}`;
      if (entry.message.type === 'approval-card') cards.set(entry.message.requestId, ts);
      // After the worker has recorded the part: a waiter reads the cards it wrote.
      setImmediate(() => {
        const waiter = waiters.get(`${entry.conversationId}/${entry.message.type}`);
        waiter?.();
      });
      return { channel: channelId, ts };
    },
  };
  return {
    port,
    sent: () => sent,
    cardOf: (requestId: string) => cards.get(requestId),
    /** Resolves when a part of this type is sent in the conversation. */
    next(conversation: string, type: OutboxEntry['message']['type']): Promise<void> {
      return new Promise((resolve) => {
        waiters.set(`${conversation}/${type}`, () => {
          waiters.delete(`${conversation}/${type}`);
          resolve();
        });
      });
    },
  };
}

function buildHarness(file: string): Harness {
  const db = openDatabase(file, { synchronous });
  const commits = countCommits(db);
  const store = createSqliteStore(db);
  const slack = instantSlack();
  const runtime = new Runtime({
    store,
    model: instantModel,
    policy: policySchema.parse({ approvers: { default: { users: [approver] } } }),
    tools: [noop],
    directory: { groupMembers: async () => [] },
    logger: pino({ level: 'silent' }),
    delivery: { port: slack.port },
    // Ten thousand waiting conversations are ten thousand people's, not one person's backlog.
    admission: { perThread: 5, perUser: Number.MAX_SAFE_INTEGER },
  });
  runtime.observe(silentObserver);
  const cards = new Map<string, { ts: string; fingerprint: string }>();

  return {
    runtime,
    commits: commits.count,
    deliveries: slack.sent,
    pendingApprovals: () =>
      Number(db.prepare('SELECT count(*) FROM approvals WHERE decision IS NULL').pluck().get()),
    async mention(thread) {
      const conversation = conversationId({ teamId, channelId, threadTs: thread });
      const carded = slack.next(conversation, 'approval-card');
      const submitted = await runtime.submit({
        teamId,
        channelId,
        threadTs: thread,
        triggerKey: `${channelId}:${thread}`,
        triggerTs: thread,
        requestedBy: requester,
        inputText: '@requester: restart web-1',
      });
      if (submitted.type !== 'enqueued') throw new Error(`the mention was not taken: ${submitted.type}`);
      await carded;
      const [approval] = await store.approvals.pending({ conversationId: conversation, limit: 1 });
      const cardTs = approval ? slack.cardOf(approval.requestId) : undefined;
      if (!approval || !cardTs) throw new Error(`no card was delivered in ${thread}`);
      // What the card's buttons carry, as the click payload brings it back.
      cards.set(approval.requestId, { ts: cardTs, fingerprint: argsFingerprint(approval.argsHash) });
      return approval.requestId;
    },
    async approve(thread, requestId) {
      const conversation = conversationId({ teamId, channelId, threadTs: thread });
      const answered = slack.next(conversation, 'answer');
      const decision = await runtime.decide({
        requestId,
        userId: approver,
        action: 'allow',
        origin: {
          type: 'card',
          teamId,
          enterpriseId: undefined,
          channelId,
          messageTs: cards.get(requestId)?.ts ?? '',
        },
        argsFingerprint: cards.get(requestId)?.fingerprint,
        installationEnterpriseId: undefined,
      });
      if (decision.type !== 'decided') throw new Error(`expected a decision, got ${decision.type}`);
      await answered;
      cards.delete(requestId);
    },
    async close() {
      await runtime.idle();
      await runtime.shutdown();
      store.close();
    },
  };
}

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

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
      await harness.runtime.idle();
      commitsBefore = harness.commits();
      deliveriesBefore = harness.deliveries();
    }
    const thread = `1700000000.${String(i).padStart(6, '0')}`;
    const started = performance.now();
    const requestId = await harness.mention(thread);
    await harness.approve(thread, requestId);
    if (i >= warmup) durations.push(performance.now() - started);
  }
  // Commits are counted over the whole run, not per cycle: a delivery marker rides along in whichever
  // commit comes next (often the next cycle's), and the last ones commit here.
  await harness.runtime.idle();
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
  const harness = buildHarness(path.join(workdir, 'suspended.db'));
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
      tools: [noop],
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

function fixed(value: number, digits = 3): number {
  return Number(value.toFixed(digits));
}

async function main(): Promise<void> {
  const raw = measureRawCommits();
  const cycle = await measureCycles();
  const suspended = await measureSuspended();
  const pinned = measurePinned();
  pinned.release();

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
