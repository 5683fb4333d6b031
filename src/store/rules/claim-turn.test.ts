import { describe, expect, it } from 'vitest';
import type { TurnStatus } from '../records.js';
import { type ClaimDecision, type ClaimFacts, decideClaim, leaseLapsed } from './claim-turn.js';

const now = 1_000_000;

interface Row {
  readonly name: string;
  readonly status: TurnStatus;
  readonly lease?: { owner: string | null; expiresAt: number | null };
  readonly facts?: Partial<ClaimFacts>;
  readonly expected: ClaimDecision;
}

const live = { owner: 'proc-a', expiresAt: now + 1 };
const take = (mode: 'start' | 'resume' | 'recover'): ClaimDecision => ({ type: 'take', mode });
const refuse = (reason: string): ClaimDecision => ({ type: 'refuse', reason });

// One row per branch of the turn state machine's entrance (DESIGN §3).
const table: readonly Row[] = [
  { name: 'queued, nothing earlier', status: 'queued', expected: take('start') },
  {
    name: 'queued behind an unfinished turn',
    status: 'queued',
    facts: { blockedByEarlier: true },
    expected: refuse('an earlier turn is unfinished'),
  },
  { name: 'awaiting, every approval decided', status: 'awaiting_approval', expected: take('resume') },
  {
    name: 'awaiting, one approval pending',
    status: 'awaiting_approval',
    facts: { pendingApprovals: 1 },
    expected: refuse('approvals still pending'),
  },
  { name: 'running, live lease', status: 'running', lease: live, expected: refuse('held by a live lease') },
  {
    name: 'running, lease ends this very millisecond',
    status: 'running',
    lease: { owner: 'proc-a', expiresAt: now },
    expected: refuse('held by a live lease'),
  },
  {
    name: 'running, lease lapsed',
    status: 'running',
    lease: { owner: 'proc-a', expiresAt: now - 1 },
    expected: take('recover'),
  },
  {
    name: 'running, released (no owner)',
    status: 'running',
    lease: { owner: null, expiresAt: null },
    expected: take('recover'),
  },
  {
    name: 'running, live lease of the owner known gone',
    status: 'running',
    lease: live,
    facts: { takeOverFrom: 'proc-a' },
    expected: take('recover'),
  },
  {
    name: 'running, live lease of another owner than the one gone',
    status: 'running',
    lease: live,
    facts: { takeOverFrom: 'proc-b' },
    expected: refuse('held by a live lease'),
  },
  {
    name: 'completed',
    status: 'completed',
    facts: { takeOverFrom: 'proc-a' },
    expected: refuse('turn is completed'),
  },
  { name: 'failed', status: 'failed', expected: refuse('turn is failed') },
];

describe('decideClaim', () => {
  it.each(table)('$name', ({ status, lease, facts, expected }) => {
    const turn = { status, leaseOwner: lease?.owner ?? null, leaseExpiresAt: lease?.expiresAt ?? null };
    expect(decideClaim(turn, { now, blockedByEarlier: false, pendingApprovals: 0, ...facts })).toEqual(
      expected,
    );
  });
});

describe('leaseLapsed', () => {
  it('is true without an owner or expiry and after the expiry, false up to and at it', () => {
    expect(leaseLapsed({ leaseOwner: null, leaseExpiresAt: now + 10 }, now)).toBe(true);
    expect(leaseLapsed({ leaseOwner: 'proc-a', leaseExpiresAt: null }, now)).toBe(true);
    expect(leaseLapsed({ leaseOwner: 'proc-a', leaseExpiresAt: now - 1 }, now)).toBe(true);
    expect(leaseLapsed({ leaseOwner: 'proc-a', leaseExpiresAt: now }, now)).toBe(false);
  });
});
