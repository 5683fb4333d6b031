import { describe, expect, it } from 'vitest';
import type { Approval } from '../records.js';
import type { ArgumentsEdit } from '../rules/edit-arguments.js';
import { awaitingTurn, claimed, createApproval, leaseB, startTurn } from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

function editOf(approval: Pick<Approval, 'argsHash'>, command: string): ArgumentsEdit {
  const args = { command };
  const argumentsText = JSON.stringify(args);
  return {
    fromArgsHash: approval.argsHash,
    arguments: args,
    argumentsText,
    // Opaque to the store: what the approval flow computes from the text, here any value that differs.
    argsHash: `edited:${argumentsText}`,
    summary: `run \`${command}\``,
  };
}

export function describeApprovalEditsContract(open: StoreContractFactory): void {
  async function setup(requiredApprovals = 1) {
    const database = await open();
    const started = await startTurn(database.store);
    const approval = await createApproval(database.store, started, 'call_1', {
      createdAt: database.clock.now(),
      requiredApprovals,
    });
    return { ...database, ...started, approval };
  }

  describe('approvals.resolve with an edit', () => {
    it('decides the edited arguments, keeps the proposal, and audits the edit before the decision', async () => {
      const { store, clock, approval } = await setup();
      clock.advance(1_000);
      const edit = editOf(approval, 'systemctl status web');
      const result = await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'allowed',
        decidedBy: 'UBOB',
        edit,
      });
      expect(result).toMatchObject({
        type: 'decided',
        turnReady: true,
        approval: {
          decision: 'allowed',
          decidedBy: 'UBOB',
          arguments: { command: 'systemctl status web' },
          argsHash: edit.argsHash,
          summary: 'run `systemctl status web`',
          approvedBy: ['UBOB'],
          edit: {
            proposedArguments: { command: 'systemctl restart web' },
            proposedArgsHash: approval.argsHash,
            argumentsText: edit.argumentsText,
            by: 'UBOB',
            at: clock.now(),
            count: 1,
          },
        },
      });
      expect(await store.approvals.get(approval.requestId)).toEqual(
        result.type === 'decided' ? result.approval : undefined,
      );
      const events = await store.audit.list({ approvalId: approval.requestId });
      expect(events.map((event) => [event.kind, event.actor])).toEqual([
        ['approval.requested', 'UREQUESTER'],
        ['approval.edited', 'UBOB'],
        ['approval.allowed', 'UBOB'],
      ]);
      expect(events[1]?.data).toEqual({
        tool: 'shell',
        fromArgsHash: approval.argsHash,
        argsHash: edit.argsHash,
        changed: ['command'],
        edits: 1,
      });
    });

    it('starts a quorum over: votes for the old arguments no longer count', async () => {
      const { store, inspect, approval } = await setup(2);
      await store.approvals.resolve({ requestId: approval.requestId, decision: 'allowed', decidedBy: 'UA' });
      const edited = await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'allowed',
        decidedBy: 'UB',
        edit: editOf(approval, 'systemctl status web'),
      });
      expect(edited).toMatchObject({
        type: 'vote-recorded',
        remaining: 1,
        approval: { decision: null, approvedBy: ['UB'], arguments: { command: 'systemctl status web' } },
      });
      const decided = await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'allowed',
        decidedBy: 'UA',
      });
      expect(decided).toMatchObject({ type: 'decided', approval: { approvedBy: ['UB', 'UA'] } });
      // Each state the cards show is its own rewrite: the vote after the edit is not the vote before it.
      const keys = (await inspect.outbox()).map((entry) => entry.key);
      expect(keys.filter((key) => key.includes('votes-1'))).toHaveLength(2);
    });

    it('changes nothing when the request no longer holds the arguments the editor saw', async () => {
      const { store, inspect, approval } = await setup(2);
      const first = editOf(approval, 'systemctl status web');
      await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'allowed',
        decidedBy: 'UA',
        edit: first,
      });
      const before = await store.approvals.get(approval.requestId);
      const outbox = await inspect.outbox();
      const late = await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'allowed',
        decidedBy: 'UB',
        edit: editOf(approval, 'systemctl stop web'),
      });
      expect(late).toEqual({ type: 'arguments-changed', approval: before });
      expect(await store.approvals.get(approval.requestId)).toEqual(before);
      expect(await inspect.outbox()).toEqual(outbox);
    });

    it('keeps the model’s proposal across a second edit and counts the edits', async () => {
      const { store, approval } = await setup(3);
      const first = editOf(approval, 'systemctl status web');
      await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'allowed',
        decidedBy: 'UA',
        edit: first,
      });
      const second = editOf({ argsHash: first.argsHash }, 'systemctl reload web');
      const result = await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'allowed',
        decidedBy: 'UB',
        edit: second,
      });
      expect(result).toMatchObject({
        type: 'vote-recorded',
        remaining: 2,
        approval: {
          approvedBy: ['UB'],
          argsHash: second.argsHash,
          edit: { proposedArguments: { command: 'systemctl restart web' }, by: 'UB', count: 2 },
        },
      });
    });

    it('leaves a decided request as it was', async () => {
      const { store, approval } = await setup();
      await store.approvals.resolve({ requestId: approval.requestId, decision: 'denied', decidedBy: 'UA' });
      const decided = await store.approvals.get(approval.requestId);
      const late = await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'allowed',
        decidedBy: 'UB',
        edit: editOf(approval, 'systemctl status web'),
      });
      expect(late).toEqual({ type: 'already-decided', approval: decided });
      expect(decided).toMatchObject({ edit: null, arguments: { command: 'systemctl restart web' } });
    });

    it('grants nothing for an edit marked always: an edit allows once', async () => {
      const { store, approval, conversationId } = await setup();
      const result = await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'allowed',
        decidedBy: 'UB',
        always: true,
        edit: editOf(approval, 'systemctl status web'),
      });
      expect(result).toMatchObject({ type: 'decided', approval: { always: false } });
      expect(await store.grants.list({ conversationId })).toEqual([]);
    });

    it('claims the turn for resume when the edit decides its last request', async () => {
      const { store, clock } = await open();
      const { approval } = await awaitingTurn(store, clock.now());
      const edit = editOf(approval, 'systemctl status web');
      const result = await store.approvals.resolve(
        { requestId: approval.requestId, decision: 'allowed', decidedBy: 'UB', edit },
        { lease: leaseB },
      );
      expect(result.type).toBe('decided');
      const claim = claimed(result.type === 'decided' ? result.claim : undefined);
      expect(claim.mode).toBe('resume');
      expect(await store.approvals.forCall(approval.transcriptId, 'call_1')).toMatchObject({
        argsHash: edit.argsHash,
      });
    });
  });
}
