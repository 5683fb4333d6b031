/**
 * Database files written by earlier releases on main, each by that release's own code
 * (`make-corpus.sh` and `make-corpus.driver.ts` beside this file say how, and what each holds): a turn
 * waiting on one request, a turn waiting on two calls of one message, a turn whose call was running
 * when its process died, an "Always allow" grant, and every card and answer still unsent. This release
 * opens each one and must carry all of it on: each approved call runs once, with one model call after
 * it; the call that was running is never run again; every unsent row goes out once; the grant still
 * lets a call run without asking.
 */
import { copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import type { TurnOutcome } from '../../src/agent/turn-runner.js';
import { argsFingerprint } from '../../src/approvals/args-fingerprint.js';
import { reply, ScriptedChatModel } from '../../src/llm/index.js';
import type { DeliveryPort } from '../../src/outbox/delivery-port.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { silentObserver } from '../../src/runtime/turn-observer.js';
import { conversationId, createSqliteStore, openDatabase } from '../../src/store/index.js';
import { latestSchemaVersion } from '../../src/store/migrations.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { approver, corePolicy, countingTool, requester } from '../flows/core/core-harness.js';
import { channelId, teamId, thread } from '../support/store-rows.js';
import { tempDir } from '../support/temp-dir.js';
import { createTestClock } from '../support/test-clock.js';
import { createTestLogger } from '../support/test-logger.js';

const corpus = readdirSync(import.meta.dirname).filter((name) => name.endsWith('.sqlite'));

/** A front end that records every part the outbox sends, by the row it belongs to. */
function recordingDelivery(): { port: DeliveryPort; sent: Map<string, number> } {
  const sent = new Map<string, number>();
  let ts = 0;
  return {
    sent,
    port: {
      async plan() {
        return ['message'];
      },
      async sendPart(entry) {
        sent.set(entry.key, (sent.get(entry.key) ?? 0) + 1);
        ts += 1;
        return { channel: channelId, ts: `1800.${String(ts).padStart(6, '0')}` };
      },
    },
  };
}

describe('files written by earlier releases', () => {
  it('holds at least three releases', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(3);
  });

  it.each(corpus)('%s: opens, and everything waiting in it carries on once', async (name) => {
    const file = tempDir('holdfast-upgrade-').file('holdfast.db');
    copyFileSync(join(import.meta.dirname, name), file);
    const before = new Database(file, { readonly: true });
    const unsent = before
      .prepare<[], { key: string }>("SELECT key FROM outbox WHERE status = 'pending'")
      .all()
      .map((row) => row.key);
    const leasesEnd = Number(before.prepare('SELECT max(lease_expires_at) FROM turns').pluck().get());
    before.close();

    const restart = countingTool('restart_service');
    let slowRuns = 0;
    const slowJob = defineTool({
      name: 'slow_job',
      description: 'A job that takes longer than the process lives.',
      parameters: z.object({}),
      permission: () => ({ type: 'allow', reason: 'safe' }),
      execute: () => {
        slowRuns += 1;
        return 'done';
      },
    });
    const model = new ScriptedChatModel([
      reply.text('The nightly job was cut off; run it again if it is still needed.'),
      reply.text('db is restarted'),
      reply.text('cache and queue are restarted'),
      reply.toolCalls(['restart_service', { service: 'web' }, 'call_web_again']),
      reply.text('web is restarted again'),
    ]);
    // The dead process's leases have run out.
    const clock = createTestClock(leasesEnd + 1);
    const db = openDatabase(file);
    const store = createSqliteStore(db, { now: clock.now });
    const outcomes: TurnOutcome[] = [];
    const delivery = recordingDelivery();
    const runtime = createRuntime({
      store,
      model,
      policy: corePolicy,
      tools: [restart.tool, slowJob],
      directory: { groupMembers: async () => [] },
      logger: createTestLogger().logger,
      now: clock.now,
      delivery: { port: delivery.port },
      observer: { ...silentObserver, turnSettled: async (outcome) => void outcomes.push(outcome) },
    });
    onTestFinished(async () => {
      await runtime.shutdown(1_000);
      await store.close();
    });
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);

    const modelCallsAfter = async (work: () => Promise<unknown>) => {
      const calls = model.calls.length;
      await work();
      await runtime.idle();
      return model.calls.length - calls;
    };
    // The turn whose call was running: taken over, the call reported as cut off and never run again.
    expect(await modelCallsAfter(() => runtime.recover())).toBe(1);
    expect(slowRuns).toBe(0);

    const pending = async (threadTs: string) =>
      store.approvals.pending({ conversationId: conversationId(thread(threadTs)), limit: 10 });
    const allow = async (threadTs: string) => {
      for (const approval of await pending(threadTs)) {
        const outcome = await runtime.decide({
          requestId: approval.requestId,
          userId: approver,
          action: 'allow',
          origin: { type: 'inbox', teamId, enterpriseId: undefined },
          argsFingerprint: argsFingerprint(approval.argsHash),
          installationEnterpriseId: undefined,
        });
        expect(outcome.type).toBe('decided');
      }
    };
    expect(await pending('1700.2')).toHaveLength(1);
    expect(await modelCallsAfter(() => allow('1700.2'))).toBe(1);
    expect(restart.runs).toEqual(['db']);

    expect(await pending('1700.3')).toHaveLength(2);
    expect(await modelCallsAfter(() => allow('1700.3'))).toBe(1);
    expect([...restart.runs].sort()).toEqual(['cache', 'db', 'queue']);

    // The grant "Always allow" made in the old release still lets the call run without asking.
    const submitted = await runtime.submit({
      teamId,
      channelId,
      threadTs: '1700.1',
      triggerKey: `${channelId}:1700.9`,
      triggerTs: '1700.9',
      requestedBy: requester,
      inputText: 'restart web again',
    });
    expect(submitted.type).toBe('enqueued');
    await runtime.idle();
    expect(restart.runs.filter((service) => service === 'web')).toEqual(['web']);
    expect(model.calls).toHaveLength(5);
    expect(outcomes.filter((outcome) => outcome.type === 'awaiting-approval')).toEqual([]);

    // Every row the old release left unsent went out, once.
    for (const key of unsent) expect(delivery.sent.get(key), key).toBe(1);
    expect([...delivery.sent.values()].every((count) => count === 1)).toBe(true);
  });
});
