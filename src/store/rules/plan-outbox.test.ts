import { describe, expect, it } from 'vitest';
import type { NewOutboxEntry, OutboxEntry, OutboxMessage } from '../outbox-message.js';
import {
  type OutboxSnapshot,
  planClaim,
  planComplete,
  planGiveUp,
  planOutboxWrite,
  planProgress,
  planRetry,
} from './plan-outbox.js';

const at = 1_000_000;
const lease = { owner: 'proc-b', durationMs: 60_000 };
const ours = { owner: 'proc-a', token: 3 };
const part = (ts: string) => ({ channel: 'C1', ts });

const pending: OutboxEntry = {
  id: 7,
  key: 'card:apr_1',
  conversationId: 'T1:C1:1700.1',
  turnId: 'turn_1',
  requestId: 'apr_1',
  message: { type: 'approval-card', requestId: 'apr_1' },
  status: 'pending',
  attempts: 0,
  nextAttemptAt: at,
  claim: null,
  inDoubt: false,
  progress: { sent: [] },
  lastError: null,
  createdAt: at - 5,
};

function snapshot(changes: Partial<OutboxEntry> = {}, claimToken = 3): OutboxSnapshot {
  return { row: { ...pending, ...changes }, claimToken };
}

/** A row proc-a holds with token 3, one attempt made. */
const held = (changes: Partial<OutboxEntry> = {}, claimToken = 3) =>
  snapshot(
    { attempts: 1, claim: { owner: 'proc-a', token: 3, expiresAt: at + 1_000 }, ...changes },
    claimToken,
  );

describe('planOutboxWrite', () => {
  it('writes each entry unclaimed and due at once, its message as JSON', () => {
    const entry: NewOutboxEntry = {
      key: 'answer:turn_1',
      conversationId: 'T1:C1:1700.1',
      turnId: 'turn_1',
      message: { type: 'answer', turnId: 'turn_1', text: 'Done.' },
    };
    expect(planOutboxWrite([entry], at)).toEqual([
      {
        key: 'answer:turn_1',
        conversationId: 'T1:C1:1700.1',
        turnId: 'turn_1',
        requestId: null,
        messageJson: JSON.stringify(entry.message),
        nextAttemptAt: at,
        createdAt: at,
      },
    ]);
  });
});

describe('planClaim', () => {
  it.each([
    ['a sent row', snapshot({ status: 'sent' }), undefined],
    ['a row not due yet', snapshot({ nextAttemptAt: at + 1 }), undefined],
    ['a row another process holds', held(), undefined],
    ['a row held by another than the one taken over', held(), 'proc-c'],
  ])('refuses %s', (_name, row, takeOverFrom) => {
    expect(planClaim(row, lease, takeOverFrom, at)).toEqual({ type: 'refused' });
  });

  it.each([
    ['an unclaimed row', snapshot(), undefined, { owner: null, token: 3 }, false],
    [
      'a lapsed claim',
      held({ claim: { owner: 'proc-a', token: 3, expiresAt: at - 1 } }),
      undefined,
      ours,
      true,
    ],
    ['a live claim taken over from its owner', held(), 'proc-a', ours, true],
    ['a row in doubt already', snapshot({ inDoubt: true }), undefined, { owner: null, token: 3 }, true],
  ])(
    'claims %s with the next token, fenced on the claim it read',
    (_name, row, takeOverFrom, fence, inDoubt) => {
      const plan = planClaim(row, lease, takeOverFrom, at);
      expect(plan.writes?.update).toEqual({
        id: 7,
        fence,
        set: expect.objectContaining({
          status: 'pending',
          claim: { owner: 'proc-b', token: 4, expiresAt: at + 60_000 },
          claimToken: 4,
          attempts: row.row.attempts + 1,
          inDoubt,
        }),
      });
      expect(plan.type === 'planned' && plan.row.claim).toEqual({
        owner: 'proc-b',
        token: 4,
        expiresAt: at + 60_000,
      });
    },
  );
});

describe('the holder’s transitions', () => {
  const stale = [
    ['another owner', held(), { owner: 'proc-b', token: 3 }],
    ['an older token', held({}, 4), ours],
    ['a row already sent', held({ status: 'sent' }), ours],
    ['an unclaimed row', snapshot(), ours],
  ] as const;
  it.each(stale)('refuse a claim that is not the row’s: %s', (_name, row, claim) => {
    expect(planProgress(row, claim, { sent: [part('1.1')] }, 30_000, at).type).toBe('refused');
    expect(planComplete(row, { id: 7, claim, progress: { sent: [] } }, at).type).toBe('refused');
    expect(planRetry(row, claim, { nextAttemptAt: at, error: 'x' }).type).toBe('refused');
    expect(planGiveUp(row, claim, { error: 'x' }, at).type).toBe('refused');
  });

  it('records progress and extends the claim, fenced on the holder’s token', () => {
    const progress = { parts: ['a', 'b'], sent: [part('1.1')] };
    const plan = planProgress(held(), ours, progress, 30_000, at);
    expect(plan.writes?.update).toEqual({
      id: 7,
      fence: ours,
      set: expect.objectContaining({
        progress,
        claim: { owner: 'proc-a', token: 3, expiresAt: at + 30_000 },
      }),
    });
    expect(plan.writes).toMatchObject({ cards: [], audit: [], insert: [] });
  });

  it.each<[string, OutboxMessage, string[]]>([
    ['an approval card', { type: 'approval-card', requestId: 'apr_1' }, ['apr_1']],
    ['a copy in a DM', { type: 'approver-copy', requestId: 'apr_1', occasion: 'request' }, ['apr_1']],
    ['a plan', { type: 'approval-plan', requestIds: ['apr_1', 'apr_2'] }, ['apr_1', 'apr_2']],
    ['an answer', { type: 'answer', turnId: 'turn_1', text: 'Done.' }, []],
  ])('completes %s: sent, claim ended, each part a card of its requests', (_name, message, ids) => {
    const progress = { sent: [part('1.1'), part('1.2')] };
    const plan = planComplete(held({ message, inDoubt: true }), { id: 7, claim: ours, progress }, at);
    expect(plan.writes?.update?.set).toMatchObject({
      status: 'sent',
      progress,
      claim: null,
      claimToken: 3,
      inDoubt: false,
      lastError: null,
      finishedAt: at,
    });
    expect(plan.writes?.cards).toEqual(
      ids.flatMap((requestId) => [
        { ...part('1.1'), requestId },
        { ...part('1.2'), requestId },
      ]),
    );
  });

  it.each([
    ['a failure', {}, 1, false],
    ['a failure that may have landed', { inDoubt: true }, 1, true],
    ['a wait Slack asked for', { waited: true }, 0, false],
  ])('hands the row back after %s', (_name, extra, attempts, inDoubt) => {
    const plan = planRetry(held(), ours, { nextAttemptAt: at + 5_000, error: 'ratelimited', ...extra });
    expect(plan.writes?.update).toEqual({
      id: 7,
      fence: ours,
      set: expect.objectContaining({
        status: 'pending',
        claim: null,
        claimToken: 3,
        attempts,
        inDoubt,
        nextAttemptAt: at + 5_000,
        lastError: 'ratelimited',
        finishedAt: null,
      }),
    });
  });

  it('gives up: failed, audited, and the notice to a person written unclaimed in the same commit', () => {
    const notice: NewOutboxEntry = {
      key: 'undeliverable:card:apr_1',
      conversationId: 'T1:C1:1700.1',
      message: { type: 'turn-notice', turnId: 'turn_1', notice: { type: 'failed', code: 'x', message: 'y' } },
    };
    const progress = { sent: [part('1.1')] };
    const plan = planGiveUp(held({ progress }), ours, { error: 'not_in_channel', notify: [notice] }, at);
    expect(plan.writes?.update?.set).toMatchObject({
      status: 'failed',
      progress,
      claim: null,
      lastError: 'not_in_channel',
      finishedAt: at,
    });
    expect(plan.writes?.audit).toEqual([
      {
        actor: 'holdfast',
        kind: 'delivery.failed',
        approvalId: 'apr_1',
        conversationId: 'T1:C1:1700.1',
        data: { key: 'card:apr_1', error: 'not_in_channel', turnId: 'turn_1' },
      },
    ]);
    expect(plan.writes?.insert).toEqual(planOutboxWrite([notice], at));
  });
});
