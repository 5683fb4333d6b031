import { WebClient } from '@slack/web-api';
import pino from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startFakeSlackApi } from '../../../test/support/fake-slack-api.js';
import { openTestStore } from '../../../test/support/open-test-store.js';
import { tempDir } from '../../../test/support/temp-dir.js';
import type { TurnObserver } from '../../runtime/turn-observer.js';
import { answerEntry, startTurn, thread } from '../../store/contract/contract-fixtures.js';
import type { Turn } from '../../store/records.js';
import type { Store } from '../../store/store.js';
import { createSlackWebApi } from '../web-api/slack-web-api.js';
import { createSlackTurnObserver } from './slack-turn-observer.js';

/** The observer on the real Web API client, against the stand-in Slack, over a store on a file. */
async function observerOnSlack() {
  const api = await startFakeSlackApi();
  onTestFinished(() => api.close());
  const { store } = openTestStore(tempDir('holdfast-observer-').file('holdfast.db'));
  const client = new WebClient(api.botToken, { slackApiUrl: api.url, retryConfig: { retries: 0 } });
  const logger = pino({ level: 'silent' });
  const slack = createSlackWebApi({ client, logger, priority: 'optional' });
  const certain = createSlackWebApi({ client, logger, rateLimitPatienceMs: 10_000 });
  const observer = createSlackTurnObserver({ slack, certain, store, logger, workingAfterMs: 60_000 });
  return { api, store, observer };
}

/** The outbox reports the turn's answer posted, as the worker does once it is in the thread. */
async function answerDelivered(store: Store, observer: TurnObserver, turn: Turn): Promise<void> {
  const [answer] = await store.outbox.enqueue([answerEntry(turn.id, turn.conversationId)]);
  if (!answer) throw new Error('no answer row');
  observer.delivered?.(answer);
}

describe('the tick of a completed turn', () => {
  it('shows only once the answer is in the thread', async () => {
    const { api, store, observer } = await observerOnSlack();
    const { turn } = await startTurn(store, { key: thread('1700.3') });
    const started = await store.turns.get(turn.turnId);
    if (!started) throw new Error('no turn');
    await observer.turnStarting(started);
    await observer.turnSettled({ type: 'completed', turn: started, answer: 'Done.' });
    await observer.idle?.();
    expect(api.reactions(thread('1700.3').channelId, started.triggerTs)).toEqual([]);

    await answerDelivered(store, observer, started);
    await observer.idle?.();
    expect(api.reactions(thread('1700.3').channelId, started.triggerTs)).toEqual(['white_check_mark']);
  });
});

describe('the thread status of a turn taken over from a process that died', () => {
  it('takes the dead process’s hourglass and working session off when the turn ends', async () => {
    const { api, store, observer } = await observerOnSlack();
    const key = thread('1700.1');
    const { turn } = await startTurn(store, { key });
    const running = await store.turns.get(turn.turnId);
    if (!running) throw new Error('no turn');
    // What the dead process showed: an hourglass on the message, and a working session.
    await new WebClient(api.botToken, { slackApiUrl: api.url }).reactions.add({
      channel: key.channelId,
      timestamp: running.triggerTs,
      name: 'hourglass_flowing_sand',
    });
    await new WebClient(api.botToken, { slackApiUrl: api.url }).agents.sessions.setStatus({
      channel_id: key.channelId,
      thread_ts: key.threadTs,
      status: 'processing',
    });

    // This process recovers it (its row still says running) and answers quickly: it shows nothing itself.
    await observer.turnStarting(running);
    await observer.turnSettled({ type: 'completed', turn: running, answer: 'Done.' });
    await answerDelivered(store, observer, running);
    await observer.idle?.();

    expect(api.reactions(key.channelId, running.triggerTs)).toEqual(['white_check_mark']);
    expect(api.sessionStatus(key.channelId, key.threadTs)).toBe('active');
  });

  it('takes nothing off a new turn it starts: no call is spent on what was never shown', async () => {
    const { api, store, observer } = await observerOnSlack();
    const key = thread('1700.2');
    const { turn } = await startTurn(store, { key });
    const started = await store.turns.get(turn.turnId);
    if (!started) throw new Error('no turn');

    // A new message's turn is shown to the observer as it stood before its claim: queued.
    await observer.turnStarting({ ...started, status: 'queued' });
    await observer.turnSettled({ type: 'completed', turn: started, answer: 'Done.' });
    await answerDelivered(store, observer, started);
    await observer.idle?.();

    expect(api.calls.map((call) => call.method)).toEqual(['reactions.add']);
    expect(api.reactions(key.channelId, started.triggerTs)).toEqual(['white_check_mark']);
  });
});
