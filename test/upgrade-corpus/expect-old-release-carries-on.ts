/**
 * What every file of the upgrade corpus must do when this release opens it, on either engine: the turn
 * whose call was running when its process died is taken over and its call never run again; each
 * approved call runs once, with one model call after it; the old "Always allow" grant still lets a call
 * run without asking; every row the old release left unsent goes out once. `make-corpus.driver.ts` says
 * what each file holds.
 */
import { expect, onTestFinished } from 'vitest';
import { z } from 'zod';
import type { TurnOutcome } from '../../src/agent/turn-runner.js';
import { argsFingerprint } from '../../src/approvals/args-fingerprint.js';
import { reply, ScriptedChatModel } from '../../src/llm/index.js';
import type { DeliveryPort } from '../../src/outbox/delivery-port.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { silentObserver } from '../../src/runtime/turn-observer.js';
import { conversationId, type Store } from '../../src/store/index.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { approver, corePolicy, countingTool, requester } from '../flows/core/core-harness.js';
import { channelId, teamId, thread } from '../support/store-rows.js';
import { createTestClock } from '../support/test-clock.js';
import { createTestLogger } from '../support/test-logger.js';

/** What the old release left, read from its file before this release opens it. */
export interface OldReleaseState {
  /** Keys of the outbox rows still pending. */
  readonly unsent: readonly string[];
  /** When the last lease the dead process held runs out. */
  readonly leasesEnd: number;
}

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

/**
 * Opens the old release's database with `open` (which migrates it and may check the schema it reached)
 * once the dead process's leases have run out, and carries everything in it on.
 */
export async function expectOldReleaseCarriesOn(
  old: OldReleaseState,
  open: (now: () => number) => Store | Promise<Store>,
): Promise<void> {
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
  const clock = createTestClock(old.leasesEnd + 1);
  const store = await open(clock.now);
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
  expect(old.unsent.length).toBeGreaterThan(0);
  for (const key of old.unsent) expect(delivery.sent.get(key), key).toBe(1);
  expect([...delivery.sent.values()].every((count) => count === 1)).toBe(true);
}
