import type Database from 'better-sqlite3';
import { onTestFinished } from 'vitest';
import { z } from 'zod';
import type { ChatMessage, ChatModel } from '../../../src/agent/chat-model.js';
import type { Tool } from '../../../src/agent/tool.js';
import type { TurnOutcome } from '../../../src/agent/turn-runner.js';
import { argsFingerprint } from '../../../src/approvals/args-fingerprint.js';
import type { DecisionAction, DecisionOutcome } from '../../../src/approvals/decide-approval.js';
import { type Policy, policySchema } from '../../../src/approvals/policy.js';
import { Runtime } from '../../../src/runtime/create-runtime.js';
import { silentObserver } from '../../../src/runtime/turn-observer.js';
import { conversationId, createSqliteStore, openDatabase, type Store } from '../../../src/store/index.js';
import type { EnqueueResult } from '../../../src/store/store.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { channelId, teamId, thread } from '../../support/store-rows.js';
import { tempDir } from '../../support/temp-dir.js';
import { createTestClock, type TestClock } from '../../support/test-clock.js';
import { createTestLogger, type TestLogger } from '../../support/test-logger.js';

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

export interface CoreHarness {
  readonly file: string;
  readonly clock: TestClock;
  readonly log: TestLogger;
  readonly runtime: Runtime;
  readonly store: Store;
  readonly db: Database.Database;
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
  crash(next: { model: ChatModel; tools?: readonly Tool[] }): void;
}

export function threadId(threadTs: string): string {
  return conversationId(thread(threadTs));
}

export function startCoreHarness(options: CoreHarnessOptions): CoreHarness {
  const file = tempDir('holdfast-core-').file('holdfast.db');
  const clock = createTestClock();
  const log = createTestLogger();
  const outcomes: TurnOutcome[] = [];
  const waiters: Array<(outcome: TurnOutcome) => void> = [];
  const report = (outcome: TurnOutcome) => {
    const waiter = waiters.shift();
    if (waiter) waiter(outcome);
    else outcomes.push(outcome);
  };

  const build = (model: ChatModel, tools: readonly Tool[]) => {
    const db = openDatabase(file);
    const store = createSqliteStore(db, { now: clock.now });
    const runtime = new Runtime({
      store,
      model,
      policy: corePolicy,
      tools,
      directory: { groupMembers: async () => [] },
      logger: log.logger,
      now: clock.now,
      agentCacheSize: options.agentCacheSize,
      approvalExpiryMs: options.approvalExpiryMs,
      budget: options.budget,
      admission: options.admission,
    });
    runtime.observe({ ...silentObserver, turnSettled: async (outcome) => report(outcome) });
    return { db, store, runtime };
  };

  let current = build(options.model, options.tools);
  let tools = options.tools;
  const stop = async () => {
    await current.runtime.shutdown(1_000);
    current.store.close();
  };
  onTestFinished(stop);

  return {
    file,
    clock,
    log,
    get runtime() {
      return current.runtime;
    },
    get store() {
      return current.store;
    },
    get db() {
      return current.db;
    },
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
      const stored = await current.store.transcript.messages(threadId(threadTs));
      return stored.map((row) => row.message);
    },
    async reopen(next) {
      await stop();
      tools = next.tools ?? tools;
      current = build(next.model, tools);
    },
    crash(next) {
      current.store.close();
      tools = next.tools ?? tools;
      current = build(next.model, tools);
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
