import { isQuestion } from '../agent/person-question.js';
import type { ApproverCopyOccasion } from '../store/outbox-message.js';
import type { Approval } from '../store/records.js';
import type { ApproverSet, Policy } from './policy.js';
import { approversFor } from './policy-lookup.js';

/**
 * How far a request reaches beyond its thread: a copy of its card in the DM of each person who may decide
 * it, a reminder halfway to its expiry, and an escalation near the end.
 */
export interface ApproverReach {
  /** People one request is copied to (and reminded); 0 keeps requests in their thread. */
  readonly maxCopies: number;
  /** Told near the end when nobody has decided; empty for no escalation. */
  readonly escalation: ApproverSet;
}

export const noReach: ApproverReach = { maxCopies: 0, escalation: { users: [], groups: [] } };

/** An escalation group is meant to be reached whole; the cap only keeps a mistyped group id cheap. */
const maxEscalationCopies = 25;

/** Reminders go out once half the window has passed; escalation once a tenth of it is left. */
const reminderFraction = 0.5;
const escalationFraction = 0.9;

export function reminds(reach: ApproverReach): boolean {
  return reach.maxCopies > 0;
}

export function escalates(reach: ApproverReach): boolean {
  return reach.escalation.users.length > 0 || reach.escalation.groups.length > 0;
}

/** The moment `fraction` of the request's window has passed. */
function pointOfWindow(approval: Pick<Approval, 'createdAt' | 'expiresAt'>, fraction: number): number {
  return approval.createdAt + Math.floor((approval.expiresAt - approval.createdAt) * fraction);
}

/**
 * The nudges a pending request is due at `now`, in the order they go out. An overdue request gets none:
 * it expires instead. Whether one went out already is the outbox key's business, not this rule's.
 */
export function nudgesDue(
  approval: Pick<Approval, 'createdAt' | 'expiresAt' | 'decision' | 'permissionType'>,
  now: number,
  reach: ApproverReach,
): ApproverCopyOccasion[] {
  // A question is its requester's alone: no approver is reminded of it.
  if (approval.decision !== null || now >= approval.expiresAt || isQuestion(approval)) return [];
  const due: ApproverCopyOccasion[] = [];
  if (reminds(reach) && now >= pointOfWindow(approval, reminderFraction)) due.push('reminder');
  if (escalates(reach) && now >= pointOfWindow(approval, escalationFraction)) due.push('escalation');
  return due;
}

/**
 * Who gets a copy on this occasion, in a stable order, at most the cap: the request's approvers (group
 * members expanded) for the request and its reminder, the escalation group for the escalation. Nobody
 * is sent a card they could not use: the requester only where self-approval is allowed, and a reminder
 * skips those who have already approved.
 */
export async function copyRecipients(
  deps: {
    readonly policy: Policy;
    readonly reach: ApproverReach;
    readonly groupMembers: (groupId: string) => Promise<readonly string[]>;
  },
  approval: Pick<Approval, 'toolName' | 'permissionType' | 'requestedBy' | 'approvedBy'>,
  occasion: ApproverCopyOccasion,
): Promise<string[]> {
  const { policy, reach } = deps;
  const set =
    occasion === 'escalation'
      ? reach.escalation
      : approversFor(policy, approval.toolName, approval.permissionType);
  const cap = occasion === 'escalation' ? maxEscalationCopies : reach.maxCopies;
  const skip = new Set(occasion === 'reminder' ? approval.approvedBy : []);
  if (!policy.approvers.allowSelfApproval) skip.add(approval.requestedBy);
  const people = new Set<string>();
  const add = (user: string) => {
    if (people.size < cap && !skip.has(user)) people.add(user);
  };
  for (const user of set.users) add(user);
  for (const group of set.groups) {
    if (people.size >= cap) break;
    for (const user of await deps.groupMembers(group)) add(user);
  }
  return [...people];
}
