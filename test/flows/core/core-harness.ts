import Database from 'better-sqlite3';
import { onTestFinished } from 'vitest';
import { z } from 'zod';
import type { ChatMessage, ChatModel } from '../../../src/agent/chat-model.js';
import type { Tool } from '../../../src/agent/tool.js';
import type { TurnOutcome } from '../../../src/agent/turn-runner.js';
import { argsFingerprint } from '../../../src/approvals/args-fingerprint.js';
import type { DecisionAction, DecisionOutcome } from '../../../src/approvals/decide-approval.js';
import { type Policy, policySchema } from '../../../src/approvals/policy.js';
import { createRuntime, type Runtime } from '../../../src/runtime/create-runtime.js';
import { silentObserver } from '../../../src/runtime/turn-observer.js';
import { conversationId, createSqliteStore, openDatabase, type Store } from '../../../src/store/index.js';
import type { EnqueueResult } from '../../../src/store/store.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { transcriptOf } from '../../support/store-reads.js';
import { channelId, teamId, thread } from '../../support/store-rows.js';
import { tempDir } from '../../support/temp-dir.js';
import { createTestClock, type TestClock } from '../../support/test-clock.js';
import { createTestLogger, type TestLogger } from '../../support/test-logger.js';

/** The people of the core flows by name; the approver is the one whose decisions the model hears of. */
const peopleNames: Readonly<Record<string, string>> = { UAPPROVER: 'Ada' };
export const approver = 'UAPPROVER';
export const requester = 'UREQUESTER';

export const corePolicy: Policy = policySchema.parse({ approvers: { default: { users: [approver] } } });

/** A tool that needs approval and records every real run, so a test can count side effects. */
export function countingTool(name = 'restart_service'): { tool: Tool; runs: string[] } {
  const runs: string[] = [];
  const tool = defineTool({
    name,
    description: 'Restarts a service.',
    parameters: z.object({ service: z.string() }),
    permission: (args) => ({ type: 'ask', permissionType: 'restart', summary: `restart ${args.service}` }),
    execute: (args) => {
      runs.push(args.service);
      return `restarted ${args.service}`;
    },
  });
  return { tool: tool as Tool, runs };
}

/** A tool that declares itself safe: it runs without asking, and counts its runs too. */
export function safeTool(name = 'read_status'): { tool: Tool; runs: string[] } {
  const runs: string[] = [];
  const tool = defineTool({
    name,
    description: 'Reads the status of a service.',
    parameters: z.object({ service: z.string() }),
    permission: () => ({ type: 'allow', reason: 'safe' }),
    execute: (args) => {
      runs.push(args.service);
      return `${args.service} is up`;
    },
  });
  return { tool: tool as Tool, runs };
}

export interface CoreHarnessOptions {
  readonly model: ChatModel;
  readonly tools: readonly Tool[];
  readonly agentCacheSize?: number;
  readonly approvalExpiryMs?: number;
  readonly budget?: { readonly modelCalls: number; readonly toolCalls: number };
  readonly admission?: { readonly perThread: number; readonly perUser: number };
}

/**
 * The database a harness runs on: SQLite on a file, or PostgreSQL on a schema of the test server. Flow
 * tests that must hold on both are written once against this.
 */
export interface CoreEngine {
  /** A store on this test's database: the same data every time it is called (a restart). */
  open(clock: () => number): Store | Promise<Store>;
  /** Rows as another connection sees them (what is committed), for tests that look under the port. */
  rows<Row>(sql: string): Promise<Row[]>;
}

/** SQLite on a fresh file for the current test. */
export function sqliteEngine(): CoreEngine & { readonly file: string } {
  const file = tempDir('holdfast-core-').file('holdfast.db');
  return {
    file,
    open: (clock) => createSqliteStore(openDatabase(file), { now: clock }),
    async rows<Row>(sql: string) {
      const reader = new Database(file, { readonly: true });
      try {
        return reader.prepare(sql).all() as Row[];
      } finally {
        reader.close();
      }
    },
  };
}

export interface CoreHarness {
  readonly clock: TestClock;
  readonly log: TestLogger;
  readonly runtime: Runtime;
  readonly store: Store;
  /** Rows as another connection sees them. */
  rows<Row>(sql: string): Promise<Row[]>;
  /** The next turn outcome the runtime reports (buffered: it may have happened already). */
  nextOutcome(): Promise<TurnOutcome>;
  /** A user message in a thread of the test channel; `ts` is the message ts (default: the thread ts). */
  submit(threadTs: string, text: string, options?: { ts?: string; user?: string }): Promise<EnqueueResult>;
  decide(requestId: string, action: DecisionAction, userId?: string): Promise<DecisionOutcome>;
  /** The conversation transcript of a thread, as the model sees it. */
  messages(threadTs: string): Promise<ChatMessage[]>;
  /** Shuts the runtime down, closes the database and builds everything again from the file. */
  reopen(next: { model: ChatModel; tools?: readonly Tool[] }): Promise<void>;
  /**
   * A process death: the database closes under whatever is still running, with no shutdown and no lease
   * release, and a new process is built from the file. The lease the dead process held is left to expire.
   */
  crash(next: { model: ChatModel; tools?: readonly Tool[] }): Promise<void>;
}

/** The harness on SQLite, with the file and its connection for tests that only SQLite has. */
export interface SqliteCoreHarness extends CoreHarness {
  readonly file: string;
  readonly db: Database.Database;
}

export function threadId(threadTs: string): string {
  return conversationId(thread(threadTs));
}

export function startCoreHarness(options: CoreHarnessOptions): SqliteCoreHarness {
  const engine = sqliteEngine();
  let db: Database.Database | undefined;
  const harness = createHarness(
    {
      open: (clock) => {
        db = openDatabase(engine.file);
        return createSqliteStore(db, { now: clock });
      },
      rows: engine.rows,
    },
    options,
    (open) => open() as Store,
  );
  // A getter, not a copy: a crash or reopen opens a new connection.
  return Object.defineProperties(harness, {
    file: { value: engine.file },
    db: { get: () => db },
  }) as SqliteCoreHarness;
}

/** The harness on any engine; the store opens asynchronously (PostgreSQL). */
export async function startCoreHarnessOn(
  engine: CoreEngine,
  options: CoreHarnessOptions,
): Promise<CoreHarness> {
  const clock = createTestClock();
  const first = await engine.open(clock.now);
  return createHarness(engine, options, () => first, clock);
}

function createHarness(
  engine: CoreEngine,
  options: CoreHarnessOptions,
  firstStore: (open: () => Store | Promise<Store>) => Store,
  clock: TestClock = createTestClock(),
): CoreHarness {
  const log = createTestLogger();
  const outcomes: TurnOutcome[] = [];
  const waiters: Array<(outcome: TurnOutcome) => void> = [];
  const report = (outcome: TurnOutcome) => {
    const waiter = waiters.shift();
    if (waiter) waiter(outcome);
    else outcomes.push(outcome);
  };

  const build = (store: Store, model: ChatModel, tools: readonly Tool[]) => {
    const runtime = createRuntime({
      observer: { ...silentObserver, turnSettled: async (outcome) => report(outcome) },
      store,
      model,
      policy: corePolicy,
      tools,
      // Names as the front end would look them up, for what the model is told about people.
      directory: { groupMembers: async () => [], userName: async (userId) => peopleNames[userId] },
      logger: log.logger,
      now: clock.now,
      agentCacheSize: options.agentCacheSize,
      approvalExpiryMs: options.approvalExpiryMs,
      budget: options.budget,
      admission: options.admission,
    });
    return { store, runtime };
  };

  let current = build(
    firstStore(() => engine.open(clock.now)),
    options.model,
    options.tools,
  );
  let tools = options.tools;
  const stop = async () => {
    await current.runtime.shutdown(1_000);
    await current.store.close();
  };
  onTestFinished(stop);

  return {
    clock,
    log,
    get runtime() {
      return current.runtime;
    },
    get store() {
      return current.store;
    },
    rows: (sql) => engine.rows(sql),
    nextOutcome() {
      const ready = outcomes.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve) => waiters.push(resolve));
    },
    submit(threadTs, text, submitOptions = {}) {
      const ts = submitOptions.ts ?? threadTs;
      return current.runtime.submit({
        teamId,
        channelId,
        threadTs,
        triggerKey: `${channelId}:${ts}`,
        triggerTs: ts,
        requestedBy: submitOptions.user ?? requester,
        inputText: text,
      });
    },
    async decide(requestId, action, userId = approver) {
      // As a person shown the request would: the click carries the fingerprint of its arguments.
      const approval = await current.store.approvals.get(requestId);
      return current.runtime.decide({
        requestId,
        userId,
        action,
        origin: { type: 'inbox', teamId, enterpriseId: undefined },
        argsFingerprint: approval ? argsFingerprint(approval.argsHash) : undefined,
        installationEnterpriseId: undefined,
      });
    },
    async messages(threadTs) {
      return transcriptOf(current.store, threadId(threadTs));
    },
    async reopen(next) {
      await stop();
      tools = next.tools ?? tools;
      current = build(await engine.open(clock.now), next.model, tools);
    },
    crash(next) {
      // Synchronous on SQLite up to the new process, so a test need not await it there.
      const closed = current.store.close();
      tools = next.tools ?? tools;
      const opened = engine.open(clock.now);
      if (!(opened instanceof Promise) && !(closed instanceof Promise)) {
        current = build(opened, next.model, tools);
        return Promise.resolve();
      }
      return Promise.all([closed, opened]).then(([, store]) => {
        current = build(store, next.model, tools);
      });
    },
  };
}

/** A promise that never settles: a call parked on it is still in flight when the process dies. */
export function never<T>(): Promise<T> {
  return new Promise<T>(() => {});
}

/** Tool results in a transcript, by tool call id. */
export function toolResults(messages: readonly ChatMessage[]): Map<string, string> {
  const results = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'tool') results.set(message.toolCallId, message.content);
  }
  return results;
}
