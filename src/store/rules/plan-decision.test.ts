import { describe, expect, it } from 'vitest';
import type { DecisionInput } from '../ports/approval-store.js';
import type { Approval } from '../records.js';
import { type DecisionSnapshot, planDecision, planExpiry, planRebind } from './plan-decision.js';

const at = 1_000_000;

const request: Approval = {
  requestId: 'apr_1',
  conversationId: 'T1:C1:1700.1',
  transcriptId: 'T1:C1:1700.1',
  toolCallId: 'call_1',
  turnId: 'turn_1',
  toolName: 'run_shell',
  permissionType: 'shell',
  summary: 'run `ls`',
  arguments: { command: 'ls' },
  argsHash: 'hash-ls',
  reason: null,
  requestedBy: 'UASKER',
  requiredApprovals: 1,
  approvedBy: [],
  createdAt: at - 10_000,
  expiresAt: at + 60_000,
  resolvedAt: null,
  decision: null,
  decidedBy: null,
  decisionReason: null,
  always: false,
  cards: [{ channel: 'C1', ts: '1700.2' }],
  edit: null,
};

function snapshot(changes: Partial<Approval> = {}, othersPending = 0): DecisionSnapshot {
  return { approval: { ...request, ...changes }, othersPending };
}

const allow = (decidedBy = 'UALICE', more: Partial<DecisionInput> = {}): DecisionInput => ({
  requestId: 'apr_1',
  decision: 'allowed',
  decidedBy,
  ...more,
});
const deny: DecisionInput = { requestId: 'apr_1', decision: 'denied', decidedBy: 'UBOB', reason: 'not now' };
const edit = {
  fromArgsHash: 'hash-ls',
  arguments: { command: 'ls -la' },
  argumentsText: '{"command":"ls -la"}',
  argsHash: 'hash-ls-la',
  summary: 'run `ls -la`',
};

describe('planDecision', () => {
  it.each([
    ['a decided request', snapshot({ decision: 'denied', resolvedAt: at - 1 }), allow(), 'already-decided'],
    [
      'a second approval by the same person',
      snapshot({ requiredApprovals: 2, approvedBy: ['UALICE'] }),
      allow(),
      'already-voted',
    ],
    [
      'an edit of arguments that changed meanwhile',
      snapshot({ argsHash: 'hash-other' }),
      allow('UALICE', { edit }),
      'arguments-changed',
    ],
  ])('writes nothing for %s', (_name, state, input, type) => {
    expect(planDecision(state, input, at)).toEqual({ type });
  });

  it.each([
    // [name, snapshot, input, type, decision written, vote written, turn ready, card state, grant]
    ['one approval of one', snapshot(), allow(), 'decided', 'allowed', true, true, 'allowed', false],
    [
      'a denial, whatever the quorum',
      snapshot({ requiredApprovals: 3, approvedBy: ['UX'] }),
      deny,
      'decided',
      'denied',
      false,
      true,
      'denied',
      false,
    ],
    [
      'the first approval of two',
      snapshot({ requiredApprovals: 2 }),
      allow(),
      'vote-recorded',
      undefined,
      true,
      false,
      'votes-1',
      false,
    ],
    [
      'the approval that reaches the quorum',
      snapshot({ requiredApprovals: 2, approvedBy: ['UBOB'] }),
      allow(),
      'decided',
      'allowed',
      true,
      true,
      'allowed',
      false,
    ],
    [
      '"Always allow"',
      snapshot(),
      allow('UALICE', { always: true }),
      'decided',
      'allowed',
      true,
      true,
      'allowed',
      true,
    ],
    [
      'an approval while other requests of the turn wait',
      snapshot({}, 2),
      allow(),
      'decided',
      'allowed',
      true,
      false,
      'allowed',
      false,
    ],
    [
      'a click after the request expired',
      snapshot({ expiresAt: at }),
      allow(),
      'expired',
      'expired',
      false,
      true,
      'expired',
      false,
    ],
    [
      'an edit that allows (never "always")',
      snapshot(),
      allow('UALICE', { edit, always: true }),
      'decided',
      'allowed',
      true,
      true,
      'allowed',
      false,
    ],
    [
      'an edit that starts a quorum of two over',
      snapshot({ requiredApprovals: 2, approvedBy: ['UBOB'] }),
      allow('UALICE', { edit }),
      'vote-recorded',
      undefined,
      true,
      false,
      'edit-1-votes-1',
      false,
    ],
  ] as const)('%s', (_name, state, input, type, decision, voted, ready, card, grant) => {
    const plan = planDecision(state, input, at);
    expect(plan.type).toBe(type);
    if (plan.writes === undefined) throw new Error('expected writes');
    expect(plan.writes.decide?.decision).toBe(decision);
    expect(plan.writes.vote !== undefined).toBe(voted);
    expect(plan.writes.turnReady).toBe(ready);
    expect(plan.writes.outbox.map((entry) => entry.key)).toEqual([`card-update:apr_1:${card}`]);
    expect(plan.writes.grant !== undefined).toBe(grant);
  });

  it('an edit writes the new arguments, keeps the proposal, drops the old votes and is audited first', () => {
    const plan = planDecision(
      snapshot({ requiredApprovals: 2, approvedBy: ['UBOB'] }),
      allow('UALICE', { edit }),
      at,
    );
    if (plan.writes === undefined) throw new Error('expected writes');
    expect(plan.writes.edit).toEqual({
      detailsJson: JSON.stringify({
        arguments: edit.arguments,
        edit: {
          proposedArguments: { command: 'ls' },
          proposedArgsHash: 'hash-ls',
          argumentsText: edit.argumentsText,
          by: 'UALICE',
          at,
          count: 1,
        },
      }),
      argsHash: 'hash-ls-la',
      summary: 'run `ls -la`',
      fromArgsHash: 'hash-ls',
    });
    expect(plan.writes.audit.map((row) => row.kind)).toEqual(['approval.edited', 'approval.vote']);
    expect(plan.approval).toMatchObject({
      arguments: edit.arguments,
      argsHash: 'hash-ls-la',
      approvedBy: ['UALICE'],
    });
  });

  it('"Always allow" grants the tool in the conversation unless the click names a scope', () => {
    const plan = planDecision(snapshot(), allow('UALICE', { always: true }), at);
    expect(plan.writes?.grant).toEqual({
      scope: 'conversation',
      scopeId: 'T1:C1:1700.1',
      toolName: 'run_shell',
      createdBy: 'UALICE',
      sourceRequestId: 'apr_1',
    });
    const channel = planDecision(
      snapshot(),
      allow('UALICE', { always: true, grant: { scope: 'channel', scopeId: 'C1' } }),
      at,
    );
    expect(channel.writes?.grant).toMatchObject({ scope: 'channel', scopeId: 'C1' });
  });

  it('a decision says how the request reads after it, and audits its reason', () => {
    const plan = planDecision(snapshot(), deny, at);
    expect(plan.writes?.audit).toEqual([
      { actor: 'UBOB', kind: 'approval.denied', data: { always: false, reason: 'not now' } },
    ]);
    expect(plan.type === 'decided' && plan.approval).toEqual({
      ...request,
      decision: 'denied',
      decidedBy: 'UBOB',
      resolvedAt: at,
      always: false,
      decisionReason: 'not now',
    });
  });
});

describe('planExpiry', () => {
  it('expires the request for nobody, rewrites its cards, and resumes its turn when it was the last', () => {
    const plan = planExpiry(snapshot({ expiresAt: at - 1 }), at);
    expect(plan.writes).toEqual({
      decide: { decision: 'expired', decidedBy: null, always: false, reason: null },
      audit: [{ actor: 'holdfast', kind: 'approval.expired', data: { expiresAt: at - 1 } }],
      outbox: [
        {
          key: 'card-update:apr_1:expired',
          conversationId: request.conversationId,
          turnId: 'turn_1',
          requestId: 'apr_1',
          message: { type: 'card-update', requestId: 'apr_1' },
        },
      ],
      turnReady: true,
    });
    expect(planExpiry(snapshot({}, 1), at).writes.turnReady).toBe(false);
  });
});

describe('planRebind', () => {
  const input = {
    requestId: 'apr_1',
    fromArgsHash: 'hash-ls',
    argsHash: 'hash-ls-v2',
    changed: 'its description changed',
  };

  it.each([
    [
      'a decided request',
      snapshot({ decision: 'allowed', decidedBy: 'UB', resolvedAt: at - 1 }),
      'already-decided',
    ],
    ['an overdue request (the sweep expires it)', snapshot({ expiresAt: at }), 'already-decided'],
    ['a request bound again already', snapshot({ argsHash: 'hash-ls-v2' }), 'arguments-changed'],
  ])('leaves %s as it is', (_name, state, type) => {
    expect(planRebind(state, input, at)).toEqual({ type });
  });

  it('binds the arguments to the new definition: votes go, a note, a new card, the old cards rewritten', () => {
    const plan = planRebind(snapshot({ approvedBy: ['UA'], requiredApprovals: 2 }), input, at);
    expect(plan.type).toBe('rebound');
    if (plan.type !== 'rebound') return;
    expect(plan.approval).toMatchObject({
      argsHash: 'hash-ls-v2',
      approvedBy: [],
      arguments: { command: 'ls' },
    });
    expect(plan.writes.edit).toEqual({
      detailsJson: '{"arguments":{"command":"ls"}}',
      argsHash: 'hash-ls-v2',
      summary: 'run `ls`',
      fromArgsHash: 'hash-ls',
    });
    expect(plan.writes.decide).toBeUndefined();
    expect(plan.writes.vote).toBeUndefined();
    expect(plan.writes.turnReady).toBe(false);
    expect(plan.writes.outbox.map((entry) => [entry.key, entry.message.type])).toEqual([
      ['notice:turn_1:tool-changed:apr_1:hash-ls-v2', 'turn-notice'],
      ['card:apr_1:rebound-hash-ls-v2', 'approval-card'],
      ['card-update:apr_1:rebound-hash-ls-v2', 'card-update'],
    ]);
    expect(plan.writes.audit).toEqual([
      {
        actor: 'holdfast',
        kind: 'approval.rebound',
        data: { fromArgsHash: 'hash-ls', argsHash: 'hash-ls-v2', changed: 'its description changed' },
      },
    ]);
  });
});
