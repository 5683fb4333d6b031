import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { deliveryKeyOf } from '../support/fake-slack-api.js';
import { endShellGroupAfterTest, forThread, startCrashWorld, userTs } from './crash-world.js';
import type { HoldfastChild } from './holdfast-child.js';

/** How long both processes take traffic (a rolling deploy's overlap); HOLDFAST_CRASH_OVERLAP_MS to change. */
const overlapMs = Number(process.env.HOLDFAST_CRASH_OVERLAP_MS ?? 60_000);
/**
 * A new thread this often, for the whole overlap: wall-clock pacing on purpose, since what is under test
 * is two processes side by side for a stretch of real time (their sweeps, leases and claims interleaving).
 */
const mentionEveryMs = 400;
/** The survivor must have finished the dead process's turn within this long of the kill (its lease: 15 s). */
const takeoverBoundMs = 10_000;

interface Thread {
  readonly tag: string;
  readonly ts: string;
  readonly asks: boolean;
  readonly done: Promise<void>;
}

describe('two holdfast processes on one database file', () => {
  it('share a stretch of mentions and clicks without a duplicate, then one dies mid-turn and the other takes over', async ({
    annotate,
  }) => {
    const world = await startCrashWorld();
    const a = await world.start('a');
    const b = await world.start('b');
    const processes: HoldfastChild[] = [a, b];

    const threads: Thread[] = [];
    const began = performance.now();
    for (let n = 1; performance.now() - began < overlapMs; n += 1) {
      const tag = `t${n}`;
      const ts = userTs();
      const to = processes[n % 2] as HoldfastChild;
      const other = processes[(n + 1) % 2] as HoldfastChild;
      // Two threads in three run a command, which needs Bob's click.
      const asks = n % 3 !== 0;
      const text = asks ? `[${tag}] run: echo ${tag} >> runs.log` : `[${tag}] anything on fire?`;
      const eventId = `Ev0OVERLAP${n}`;
      const done = (async () => {
        await world.mention(to, text, { ts, eventId });
        // Slack's retry of the same event may reach the other process.
        if (n % 4 === 0) expect(await world.redeliver(other, ts, text, eventId)).toBe(200);
        if (asks) {
          const card = await world.waitForCard(ts);
          // The click lands on the process that did not take the mention; now and then on both.
          expect(await world.click(other, card)).toBe(200);
          if (n % 5 === 0) expect(await world.click(to, card)).toBe(200);
        }
        await world.waitForAnswers(ts, 1, 60_000);
      })();
      threads.push({ tag, ts, asks, done });
      await sleep(mentionEveryMs);
    }
    await Promise.all(threads.map((thread) => thread.done));

    for (const thread of threads) {
      expect(world.cards(thread.ts), thread.tag).toHaveLength(thread.asks ? 1 : 0);
      expect(
        world.answers(thread.ts).map((message) => message.text),
        thread.tag,
      ).toEqual([thread.asks ? `Done with ${thread.tag}.` : `Answer for ${thread.tag}.`]);
    }
    const commands = threads.filter((thread) => thread.asks).map((thread) => thread.tag);
    expect(world.markerLines('runs.log').sort()).toEqual(commands.sort());
    const keys = world.slack
      .succeeded('chat.postMessage')
      .map(deliveryKeyOf)
      .filter((key) => key !== undefined);
    expect(keys.filter((key, index) => keys.indexOf(key) !== index)).toEqual([]);
    for (const child of processes) {
      expect(
        child.logs.some((line) => line.msg === 'turn queued'),
        `${child.name} took mentions`,
      ).toBe(true);
    }
    await annotate(`${threads.length} threads (${commands.length} with a click) over ${overlapMs} ms`);

    // One process dies while a turn of its own waits on the model; the other finishes it.
    const held = world.openai.holdNext(forThread('tkill1'));
    const modelThread = await world.mention(a, '[tkill1] how is the web tier?');
    await held.arrived;
    await a.kill();
    const modelKilledAt = performance.now();
    held.release();
    const afterModelKill = await world.waitForAnswers(modelThread, 1, 60_000);
    const modelTakeoverMs = performance.now() - modelKilledAt;
    await annotate(
      `killed in a model call: the other process finished the turn ${Math.round(modelTakeoverMs)} ms later`,
    );

    // The next release comes up beside the survivor, and the survivor dies while its tool runs.
    const c = await world.start('c');
    endShellGroupAfterTest(() => world.markerLines('slow.log'));
    const toolThread = await world.mention(b, '[tkill2] run: echo "tkill2 $$" >> slow.log; sleep 60');
    expect(await world.click(b, await world.waitForCard(toolThread))).toBe(200);
    await expect.poll(() => world.markerLines('slow.log').length, { timeout: 30_000 }).toBe(1);
    await b.kill();
    const toolKilledAt = performance.now();
    const afterToolKill = await world.waitForAnswers(toolThread, 1, 60_000);
    const toolTakeoverMs = performance.now() - toolKilledAt;
    await annotate(
      `killed while its tool ran: the new process finished the turn ${Math.round(toolTakeoverMs)} ms later`,
    );

    expect(afterModelKill.map((message) => message.text)).toEqual(['Answer for tkill1.']);
    expect(afterToolKill.map((message) => message.text)).toEqual(['Done with tkill2.']);
    expect(world.markerLines('slow.log')).toHaveLength(1);
    expect(c.logs.some((line) => line.msg === 'taking over a turn whose process is gone')).toBe(true);
    expect(world.rows('SELECT status, count(*) AS turns FROM turns GROUP BY status')).toEqual([
      { status: 'completed', turns: threads.length + 2 },
    ]);
    // Recorded once Slack's answer reaches the process, a moment after the post is in the thread.
    await expect
      .poll(() => world.rows("SELECT key, status FROM outbox WHERE status <> 'sent'"), { timeout: 10_000 })
      .toEqual([]);
    expect(modelTakeoverMs).toBeLessThan(takeoverBoundMs);
    expect(toolTakeoverMs).toBeLessThan(takeoverBoundMs);
  });

  it('fences a process frozen past its lease: the other finishes the turn, the thawed one posts nothing', async ({
    annotate,
  }) => {
    const world = await startCrashWorld();
    const a = await world.start('a');
    await world.start('b');

    const held = world.openai.holdNext(forThread('tzombie'));
    const ts = await world.mention(a, '[tzombie] how is the web tier?');
    await held.arrived;
    a.freeze();
    const frozenAt = performance.now();
    // b takes the turn once a's lease has run out (a is alive, so not before), and answers.
    await world.waitForAnswers(ts, 1, 60_000);
    const takeoverMs = performance.now() - frozenAt;
    await annotate(`frozen process: the other finished its turn ${Math.round(takeoverMs)} ms later`);

    // a wakes up and gets the model's answer to a call it made for a turn that is no longer its own.
    a.thaw();
    held.release();
    await expect
      .poll(() => a.logs.some((line) => /^lease lost/.test(String(line.msg))), { timeout: 30_000 })
      .toBe(true);
    await a.stop();

    expect(world.answers(ts).map((message) => message.text)).toEqual(['Answer for tzombie.']);
    expect(world.rows("SELECT count(*) AS answers FROM messages WHERE role = 'assistant'")).toEqual([
      { answers: 1 },
    ]);
    expect(world.rows('SELECT status FROM turns')).toEqual([{ status: 'completed' }]);
  });
});
