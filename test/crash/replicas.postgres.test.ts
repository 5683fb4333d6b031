import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { deliveryKeyOf } from '../support/fake-slack-api.js';
import { postgresTestDatabase } from '../support/postgres-test-database.js';
import { endShellGroupAfterTest, forThread, startCrashWorld, userTs } from './crash-world.js';
import type { HoldfastChild } from './holdfast-child.js';

/** Threads spread over the three replicas before any of them dies. */
const threadCount = 12;
/** A dead replica's turn must be finished by another within this long of the kill. */
const takeoverBoundMs = 10_000;

interface Thread {
  readonly tag: string;
  readonly ts: string;
  readonly asks: boolean;
}

describe('three holdfast replicas on one PostgreSQL database', () => {
  it('share mentions and clicks without a duplicate; one killed mid-turn, one killed after taking a click, and others finish both', {
    timeout: 240_000,
  }, async ({ annotate }) => {
    const database = await postgresTestDatabase();
    const world = await startCrashWorld({ database: database.url });
    const replicas: HoldfastChild[] = [];
    for (const name of ['r1', 'r2', 'r3']) replicas.push(await world.start(name));
    const at = (index: number) => replicas[index % replicas.length] as HoldfastChild;

    const threads: Thread[] = [];
    await Promise.all(
      Array.from({ length: threadCount }, async (_, index) => {
        const n = index + 1;
        const tag = `t${n}`;
        const ts = userTs();
        // Two threads in three run a command, which needs Bob's click.
        const asks = n % 3 !== 0;
        const text = asks ? `[${tag}] run: echo ${tag} >> runs.log` : `[${tag}] anything on fire?`;
        const eventId = `Ev0REPLICA${n}`;
        threads.push({ tag, ts, asks });
        await world.mention(at(n), text, { ts, eventId });
        // Slack's retry of the same event may reach another replica behind the load balancer.
        if (n % 4 === 0) expect(await world.redeliver(at(n + 1), ts, text, eventId)).toBe(200);
        if (asks) {
          const card = await world.waitForCard(ts);
          // The click lands on a replica that did not take the mention; now and then on two at once.
          const clicks = [world.click(at(n + 1), card)];
          if (n % 5 === 0) clicks.push(world.click(at(n + 2), card));
          for (const status of await Promise.all(clicks)) expect(status).toBe(200);
        }
        await world.waitForAnswers(ts, 1, 60_000);
      }),
    );

    for (const thread of threads) {
      expect(world.cards(thread.ts), thread.tag).toHaveLength(thread.asks ? 1 : 0);
      expect(
        world.answers(thread.ts).map((message) => message.text),
        thread.tag,
      ).toEqual([thread.asks ? `Done with ${thread.tag}.` : `Answer for ${thread.tag}.`]);
    }
    const commands = threads.filter((thread) => thread.asks).map((thread) => thread.tag);
    expect(world.markerLines('runs.log').sort()).toEqual(commands.sort());
    for (const replica of replicas) {
      expect(
        replica.logs.some((line) => line.msg === 'turn queued'),
        `${replica.name} took mentions`,
      ).toBe(true);
    }

    // r1 dies while a turn of its own waits on the model; another replica finishes it.
    const held = world.openai.holdNext(forThread('tkill1'));
    const modelThread = await world.mention(at(0), '[tkill1] how is the web tier?');
    await held.arrived;
    await at(0).kill();
    const modelKilledAt = performance.now();
    held.release();
    const afterModelKill = await world.waitForAnswers(modelThread, 1, 60_000);
    const modelTakeoverMs = performance.now() - modelKilledAt;
    await annotate(
      `killed in a model call: another replica finished it ${Math.round(modelTakeoverMs)} ms later`,
    );

    // r2 takes Bob's click, resumes the turn and dies while the approved command runs; r3 finishes the
    // turn without running the command again.
    endShellGroupAfterTest(() => world.markerLines('slow.log'));
    const toolThread = await world.mention(at(2), '[tkill2] run: echo "tkill2 $$" >> slow.log; sleep 60');
    expect(await world.click(at(1), await world.waitForCard(toolThread))).toBe(200);
    await expect.poll(() => world.markerLines('slow.log').length, { timeout: 30_000 }).toBe(1);
    await at(1).kill();
    const toolKilledAt = performance.now();
    const afterToolKill = await world.waitForAnswers(toolThread, 1, 60_000);
    const toolTakeoverMs = performance.now() - toolKilledAt;
    await annotate(
      `killed after a click, in its tool: another replica finished it ${Math.round(toolTakeoverMs)} ms later`,
    );

    expect(afterModelKill.map((message) => message.text)).toEqual(['Answer for tkill1.']);
    expect(afterToolKill.map((message) => message.text)).toEqual(['Done with tkill2.']);
    expect(world.markerLines('slow.log')).toHaveLength(1);
    expect(world.cards(toolThread)).toHaveLength(1);
    const keys = world.slack
      .succeeded('chat.postMessage')
      .map(deliveryKeyOf)
      .filter((key) => key !== undefined);
    expect(keys.filter((key, index) => keys.indexOf(key) !== index)).toEqual([]);
    expect(await database.query('SELECT status, count(*) AS turns FROM turns GROUP BY status')).toEqual([
      { status: 'completed', turns: threads.length + 2 },
    ]);
    await expect
      .poll(() => database.query("SELECT key, status FROM outbox WHERE status <> 'sent'"), {
        timeout: 10_000,
      })
      .toEqual([]);
    expect(modelTakeoverMs).toBeLessThan(takeoverBoundMs);
    expect(toolTakeoverMs).toBeLessThan(takeoverBoundMs);
  });
});
