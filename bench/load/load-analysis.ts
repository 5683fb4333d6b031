import { publishedRateLimits } from '../../test/support/fake-slack-rate-limits.js';
import { fixed, percentile } from '../percentile.js';
import type { FakesReport } from './fakes-protocol.js';
import { markerOf } from './load-script.js';
import type { MentionTimeline } from './load-timeline.js';
import type { Workload } from './load-workload.js';
import type { SentMention } from './send-mentions.js';

/**
 * What a person in the workspace felt, from what the fakes saw: per Slack method, what a turn costs and
 * how often Slack said "slow down"; per phase, what was lost, doubled or out of order and how long each
 * step took; and how many turns a minute the published limits sustain at that cost.
 */

/** What must reach people: cards and their rewrites, answers, notices. The rest only shows a passing state. */
export const mustArrive = ['chat.postMessage', 'chat.update'] as const;

/** The reaction a request's message must end with: every request in the benchmark is allowed and done. */
const doneReaction = 'white_check_mark';

export interface MethodFigures {
  readonly calls_per_turn: number;
  readonly accepted_per_turn: number;
  readonly answered_429: number;
  readonly sent_inside_retry_after: number;
  /** Published calls a minute (times the channels used, for a per-channel limit) ÷ accepted per turn. */
  readonly sustainable_turns_per_min: number | null;
}

export interface PhaseFigures {
  readonly requests: number;
  readonly lost: number;
  readonly doubled: number;
  readonly out_of_order: number;
  readonly order_checked: number;
  readonly answers_beside_open_preview: number;
  readonly final_reaction_wrong: number;
  /** p50/p99 in ms, or null with no samples. */
  readonly tool_call_to_card_ms: Percentiles;
  readonly model_answer_to_visible_ms: Percentiles;
  readonly click_to_tool_start_ms: Percentiles;
  readonly first_visible_reply_ms: Percentiles;
  readonly answer_to_final_reaction_ms: Percentiles;
}

export type Percentiles = { readonly p50: number | null; readonly p99: number | null; readonly n: number };

const percentiles = (samples: readonly number[]): Percentiles =>
  samples.length === 0
    ? { p50: null, p99: null, n: 0 }
    : { p50: fixed(percentile(samples, 50), 0), p99: fixed(percentile(samples, 99), 0), n: samples.length };

export function methodFigures(
  report: FakesReport,
  turns: number,
  channels: number,
): Record<string, MethodFigures> {
  const figures: Record<string, MethodFigures> = {};
  for (const [method, stats] of Object.entries(report.methods).sort(([a], [b]) => a.localeCompare(b))) {
    const limit = publishedRateLimits[method];
    const accepted = (stats.calls - stats.limited) / Math.max(1, turns);
    const perMinute = limit ? limit.perMinute * (limit.perChannel ? channels : 1) : undefined;
    figures[method] = {
      calls_per_turn: fixed(stats.calls / Math.max(1, turns), 2),
      accepted_per_turn: fixed(accepted, 2),
      answered_429: stats.limited,
      sent_inside_retry_after: stats.insideRetryAfter,
      sustainable_turns_per_min:
        perMinute === undefined || accepted === 0 || method === 'auth.test'
          ? null
          : fixed(perMinute / accepted, 1),
    };
  }
  return figures;
}

/** The fewest turns a minute any method allows, over every method or only the must-arrive ones. */
export function sustainable(methods: Record<string, MethodFigures>) {
  const least = (names: readonly string[]) => {
    let bound: { turns_per_min: number; bound_by: string } | null = null;
    for (const name of names) {
      const turns = methods[name]?.sustainable_turns_per_min;
      if (turns !== null && turns !== undefined && (bound === null || turns < bound.turns_per_min))
        bound = { turns_per_min: turns, bound_by: name };
    }
    return bound;
  };
  return {
    all_calls: least(Object.keys(methods)),
    must_arrive: least(mustArrive),
    must_arrive_methods: [...mustArrive],
  };
}

export function phaseFigures(options: {
  readonly workload: Workload;
  readonly sent: readonly SentMention[];
  readonly startedAt: number;
  readonly lastSent: number;
  readonly report: FakesReport;
  /** Flat workload: the mentions whose answer came before an earlier one in their thread. */
  readonly flatOrder?: ReadonlyMap<number, boolean>;
}): Record<string, PhaseFigures> {
  const { workload, report, startedAt, lastSent } = options;
  const names = [...workload.phases.map((phase) => phase.name), 'drain'];
  const phaseAt = (at: number) => {
    if (at > lastSent) return 'drain';
    const since = at - startedAt;
    return workload.phases.findLast((phase) => phase.fromMs <= since)?.name ?? names[0];
  };
  const acc = new Map(
    names.map((name) => [
      name,
      {
        requests: 0,
        lost: 0,
        doubled: 0,
        outOfOrder: 0,
        orderChecked: 0,
        beside: 0,
        reactionWrong: 0,
        card: [] as number[],
        answer: [] as number[],
        tool: [] as number[],
        first: [] as number[],
        reaction: [] as number[],
      },
    ]),
  );
  const into = (at: number | undefined) => (at === undefined ? undefined : acc.get(phaseAt(at) ?? 'drain'));
  for (const mention of options.sent) {
    const plan = workload.mentions[mention.n];
    if (!plan) continue;
    const t: MentionTimeline = report.timeline[markerOf(plan)] ?? {};
    const own = into(mention.sentAt);
    if (!own) continue;
    own.requests += 1;
    if (t.answer === undefined) own.lost += 1;
    own.doubled += (t.doubledAnswers ?? 0) + (t.doubledCards ?? 0);
    // Any stream in a thread of its own is this request's preview; in a shared thread it may be another's.
    if (workload.threadPerMention) own.beside += t.besideOpenPreview ?? 0;
    if (workload.threadPerMention) {
      // In a thread of its own, order is defined where the request had a card: the answer comes after it.
      if (t.card !== undefined && t.answer !== undefined) {
        own.orderChecked += 1;
        if (t.answer < t.card) own.outOfOrder += 1;
      }
    } else {
      const violated = options.flatOrder?.get(mention.n);
      if (violated !== undefined) {
        own.orderChecked += 1;
        if (violated) own.outOfOrder += 1;
      }
    }
    const firstReply = workload.threadPerMention
      ? report.firstReplies[`${plan.channel}:${plan.ts}`]
      : Math.min(t.card ?? Number.POSITIVE_INFINITY, t.answer ?? Number.POSITIVE_INFINITY);
    if (firstReply !== undefined && Number.isFinite(firstReply)) own.first.push(firstReply - mention.sentAt);
    if (t.toolCall !== undefined && t.card !== undefined) into(t.toolCall)?.card.push(t.card - t.toolCall);
    if (t.modelAnswer !== undefined && t.answer !== undefined)
      into(t.modelAnswer)?.answer.push(t.answer - t.modelAnswer);
    if (t.click !== undefined && t.toolStart !== undefined) into(t.click)?.tool.push(t.toolStart - t.click);
    if (t.answer !== undefined) {
      const reactions = report.reactions[`${plan.channel}:${plan.ts}`];
      const right = reactions?.names.length === 1 && reactions.names[0] === doneReaction;
      if (!right) own.reactionWrong += 1;
      else into(t.answer)?.reaction.push(reactions.changedAt - t.answer);
    }
  }
  const figures: Record<string, PhaseFigures> = {};
  for (const [name, a] of acc) {
    figures[name] = {
      requests: a.requests,
      lost: a.lost,
      doubled: a.doubled,
      out_of_order: a.outOfOrder,
      order_checked: a.orderChecked,
      answers_beside_open_preview: a.beside,
      final_reaction_wrong: a.reactionWrong,
      tool_call_to_card_ms: percentiles(a.card),
      model_answer_to_visible_ms: percentiles(a.answer),
      click_to_tool_start_ms: percentiles(a.tool),
      first_visible_reply_ms: percentiles(a.first),
      answer_to_final_reaction_ms: percentiles(a.reaction),
    };
  }
  return figures;
}

/** Whether every answered request's message shows its final reaction and nothing else. */
export function settled(workload: Workload, report: FakesReport): boolean {
  if (report.streamsOpen > 0 || report.clickedCardsWithButtons > 0) return false;
  return workload.mentions.every((plan) => {
    if (report.timeline[markerOf(plan)]?.answer === undefined) return true;
    const names = report.reactions[`${plan.channel}:${plan.ts}`]?.names ?? [];
    return names.length === 1 && names[0] === doneReaction;
  });
}
