import type { ApprovalDecision } from '../store/records.js';

/** How a turn ended, as the person who asked should read it on their message. */
export type TurnEnding = 'done' | 'denied' | 'expired' | 'failed' | 'interrupted';

/** Every state the message that started a turn can show. */
export type ThreadStatus = 'working' | 'awaiting' | TurnEnding;

/**
 * One reaction per state, each distinct: a tick only ever means everything asked for ran. The marks
 * match the card's own (⛔ denied, ⌛ expired) so the message and its card read the same.
 */
export const statusReactions: Readonly<Record<ThreadStatus, string>> = {
  working: 'hourglass_flowing_sand',
  awaiting: 'bell',
  done: 'white_check_mark',
  denied: 'no_entry',
  expired: 'hourglass',
  failed: 'x',
  interrupted: 'warning',
};

/** What each reaction means, for a legend beside the thread (the local workspace shows it). */
export const statusLegend: ReadonlyArray<{ readonly status: ThreadStatus; readonly label: string }> = [
  { status: 'working', label: 'working on it' },
  { status: 'awaiting', label: 'waiting for an approval' },
  { status: 'done', label: 'done' },
  { status: 'denied', label: 'a call was denied' },
  { status: 'expired', label: 'a request expired, nobody decided' },
  { status: 'failed', label: 'failed' },
  { status: 'interrupted', label: 'interrupted: a call’s outcome is unknown' },
];

/**
 * How a turn the model answered ended. The answer alone does not say: a turn whose call was denied or
 * whose request expired still completes (the model explains), and must not read as done. The gravest
 * thing that happened wins: an unknown outcome, then nobody deciding, then a refusal.
 */
export function completedEnding(facts: {
  readonly decisions: readonly (ApprovalDecision | null)[];
  readonly interruptedCalls: number;
  /** Calls a deny rule refused. */
  readonly refusedCalls?: number;
}): Exclude<TurnEnding, 'failed'> {
  if (facts.interruptedCalls > 0) return 'interrupted';
  if (facts.decisions.includes('expired')) return 'expired';
  if (facts.decisions.includes('denied') || (facts.refusedCalls ?? 0) > 0) return 'denied';
  return 'done';
}

/** The assistant thread's status line (`assistant.threads.setStatus`) for a state; empty clears it. */
export function assistantStatusText(status: ThreadStatus): string {
  switch (status) {
    case 'working':
      return 'is working on it…';
    case 'awaiting':
      return 'is waiting for an approval…';
    case 'done':
    case 'denied':
    case 'expired':
    case 'failed':
    case 'interrupted':
      return '';
  }
}
