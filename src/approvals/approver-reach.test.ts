import { describe, expect, it } from 'vitest';
import { personQuestionType } from '../agent/person-question.js';
import { type ApproverReach, copyRecipients, nudgesDue } from './approver-reach.js';
import { policySchema } from './policy.js';

const hour = 3_600_000;
const reach: ApproverReach = { maxCopies: 10, escalation: { users: ['U0LEAD'], groups: [] } };
const window = { createdAt: 0, expiresAt: 24 * hour, decision: null, permissionType: 'shell' };

describe('nudgesDue', () => {
  it.each([
    [11 * hour, []],
    [12 * hour, ['reminder']],
    [21 * hour, ['reminder']],
    [Math.ceil(21.6 * hour), ['reminder', 'escalation']],
    [24 * hour, []],
  ])('at %d ms of a 24 h request: %j', (now, due) => {
    expect(nudgesDue(window, now, reach)).toEqual(due);
  });

  it('nudges nobody about a decided request', () => {
    expect(nudgesDue({ ...window, decision: 'allowed' }, 23 * hour, reach)).toEqual([]);
  });

  it('nudges no approver about a question put to a requester', () => {
    expect(nudgesDue({ ...window, permissionType: personQuestionType }, 23 * hour, reach)).toEqual([]);
  });

  it('sends no reminder when copies are off, and no escalation without a group', () => {
    const off: ApproverReach = { maxCopies: 0, escalation: { users: [], groups: [] } };
    expect(nudgesDue(window, 23 * hour, off)).toEqual([]);
    expect(nudgesDue(window, 23 * hour, { ...off, escalation: reach.escalation })).toEqual(['escalation']);
  });
});

describe('copyRecipients', () => {
  const policy = policySchema.parse({
    approvers: { default: { users: ['U0BOB', 'U0ALICE'], groups: ['S0ONCALL'] } },
  });
  const groupMembers = async (group: string) => (group === 'S0ONCALL' ? ['U0CAROL', 'U0BOB', 'U0DAN'] : []);
  const approval = {
    toolName: 'ops_shell',
    permissionType: 'shell',
    requestedBy: 'U0ALICE',
    approvedBy: ['U0CAROL'],
  };

  it('copies a request to each approver and group member once, never to its requester', async () => {
    expect(await copyRecipients({ policy, reach, groupMembers }, approval, 'request')).toEqual([
      'U0BOB',
      'U0CAROL',
      'U0DAN',
    ]);
  });

  it('copies to the requester too where they may approve their own calls', async () => {
    const selfish = { ...policy, approvers: { ...policy.approvers, allowSelfApproval: true } };
    expect(await copyRecipients({ policy: selfish, reach, groupMembers }, approval, 'request')).toContain(
      'U0ALICE',
    );
  });

  it('stops at the cap', async () => {
    const capped = { ...reach, maxCopies: 2 };
    expect(await copyRecipients({ policy, reach: capped, groupMembers }, approval, 'request')).toEqual([
      'U0BOB',
      'U0CAROL',
    ]);
  });

  it('reminds only those who have not approved yet', async () => {
    expect(await copyRecipients({ policy, reach, groupMembers }, approval, 'reminder')).toEqual([
      'U0BOB',
      'U0DAN',
    ]);
  });

  it('escalates to the escalation group, not the approvers', async () => {
    expect(await copyRecipients({ policy, reach, groupMembers }, approval, 'escalation')).toEqual(['U0LEAD']);
  });
});
