import type { ToolOutcome } from '../../agent/tool-outcome.js';
import type { ApprovalDecision } from '../../store/records.js';

/**
 * How a turn ended, as the person who asked should read it on their message. `failed-calls`: the answer
 * came, but a call it made failed or was stopped, so not everything asked for was done.
 */
export type TurnEnding = 'done' | 'failed-calls' | 'denied' | 'expired' | 'failed' | 'interrupted';

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
  'failed-calls': 'exclamation',
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
  { status: 'failed-calls', label: 'answered, but a call failed' },
  { status: 'denied', label: 'a call was denied' },
  { status: 'expired', label: 'a request expired, nobody decided' },
  { status: 'failed', label: 'failed' },
  { status: 'interrupted', label: 'interrupted: a call’s outcome is unknown' },
];

/**
 * How a turn the model answered ended. The answer alone does not say: a turn whose call was denied,
 * failed or whose request expired still completes (the model explains), and must not read as done. The
 * gravest thing that happened wins: an unknown outcome, then nobody deciding, then a refusal, then a
 * call that ran and failed (or was stopped). A call the model named wrongly and then corrected counts
 * for nothing: it is not something the person asked for.
 */
export function completedEnding(facts: {
  readonly decisions: readonly (ApprovalDecision | null)[];
  /** How each call the turn made ended, as kept with its result. */
  readonly outcomes: readonly ToolOutcome[];
}): Exclude<TurnEnding, 'failed'> {
  const has = (...types: ToolOutcome['type'][]) =>
    facts.outcomes.some((outcome) => types.includes(outcome.type));
  if (has('interrupted')) return 'interrupted';
  if (facts.decisions.includes('expired') || has('expired')) return 'expired';
  const refusedByPolicy = facts.outcomes.some(
    (outcome) => outcome.type === 'refused' && outcome.by === 'policy',
  );
  if (facts.decisions.includes('denied') || has('denied') || refusedByPolicy) return 'denied';
  const notDone = facts.outcomes.some(
    (outcome) =>
      outcome.type === 'failed' ||
      outcome.type === 'stopped' ||
      (outcome.type === 'refused' && (outcome.by === 'tool' || outcome.by === 'holdfast')),
  );
  return notDone ? 'failed-calls' : 'done';
}
