/** What `npm run bench:load` prints of its results (`bench/load-results.json` holds them all). */
import type { MethodFigures, Percentiles, PhaseFigures } from './load-analysis.js';

export function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

export type Results = Record<string, unknown> & { readonly targets: Record<string, boolean | null> };

type Bound = { turns_per_min: number; bound_by: string } | null;

const one = (value: unknown) => (typeof value === 'number' ? value.toFixed(1) : String(value));
const ms = (p: Percentiles) => (p.n === 0 ? '–' : `${p.p50} / ${p.p99} ms`);
const bound = (b: Bound) => (b ? `${b.turns_per_min} (${b.bound_by})` : '–');

/** The rows of one run, label then figure: one column per run when runs are compared. */
export function resultRows(r: Results): Array<[string, string]> {
  const rows: Array<[string, string]> = [
    ['Slack limits', String(r.slack_limits).split(' ')[0] ?? ''],
    ['mentions sent / acked', `${r.mentions_sent} / ${r.mentions_acked} (${r.sent_per_s}/s sent)`],
    ['redelivered (not acked with 200)', `${r.redeliveries} (${r.mentions_never_acked} still not acked)`],
    ['ack p50 / p99 (mentions)', `${one(r.ack_p50_ms)} / ${one(r.ack_p99_ms)} ms`],
    ['ack p50 / p99 (clicks)', `${one(r.click_ack_p50_ms)} / ${one(r.click_ack_p99_ms)} ms (${r.clicks})`],
    ['turns/s while mentions arrive', String(r.turns_per_s)],
    ['drain after the last mention', r.drained ? `${r.drain_s} s` : `NOT drained: ${r.unanswered} lost`],
    ['settle after the answers', `${r.settle_s} s`],
    ['failed turns (notices posted)', String(r.failure_notices)],
    [
      'duplicates (keys, answers, cards)',
      `${r.duplicate_keys}, ${r.duplicate_answers}, ${r.duplicate_cards}`,
    ],
    ['streams left open', String(r.streams_left_open)],
    ['clicked cards still with buttons', String(r.clicked_cards_left_with_buttons)],
    ['final reaction wrong', String(r.final_reactions_wrong)],
    ['app CPU ms per answer', one(r.app_cpu_ms_per_answer)],
    ['/health under load p99 / max', `${one(r.health_load_p99_ms)} / ${one(r.health_load_max_ms)} ms`],
  ];
  const sustainable = r.sustainable_turns_per_min as {
    all_calls: Bound;
    must_arrive: Bound;
    must_arrive_methods: string[];
  };
  rows.push(['sustainable turns/min: all calls', bound(sustainable.all_calls)]);
  rows.push([
    `  … must-arrive only (${sustainable.must_arrive_methods.join(', ')})`,
    bound(sustainable.must_arrive),
  ]);
  for (const [method, m] of Object.entries(r.methods as Record<string, MethodFigures>)) {
    rows.push([
      `${method}`,
      `${m.calls_per_turn}/turn (${m.accepted_per_turn} ok), 429 ×${m.answered_429}, in RA ${m.sent_inside_retry_after}` +
        (m.sustainable_turns_per_min === null ? '' : `, ${m.sustainable_turns_per_min} turns/min`),
    ]);
  }
  for (const [phase, p] of Object.entries(r.phases as Record<string, PhaseFigures>)) {
    if (p.requests > 0)
      rows.push([
        `${phase}: lost / doubled / out of order`,
        `${p.lost} / ${p.doubled} / ${p.out_of_order} of ${p.order_checked} (${p.requests} requests)`,
      ]);
    if (p.requests > 0) rows.push([`${phase}: first visible reply p50/p99`, ms(p.first_visible_reply_ms)]);
    if (p.requests > 0) rows.push([`${phase}: final reaction wrong`, String(p.final_reaction_wrong)]);
    if (p.answers_beside_open_preview > 0)
      rows.push([`${phase}: answers beside an open preview`, String(p.answers_beside_open_preview)]);
    rows.push([`${phase}: tool call → card`, ms(p.tool_call_to_card_ms)]);
    rows.push([`${phase}: model answer → visible`, ms(p.model_answer_to_visible_ms)]);
    rows.push([`${phase}: click → tool start`, ms(p.click_to_tool_start_ms)]);
    rows.push([`${phase}: answer → final reaction`, ms(p.answer_to_final_reaction_ms)]);
  }
  for (const [target, met] of Object.entries(r.targets))
    rows.push([`target ${target}`, met === null ? 'n/a' : met ? 'met' : 'MISSED']);
  return rows;
}

/** One table: a column per run, rows in the order of the first run (a row only one run has shows `–`). */
export function printTable(runs: ReadonlyArray<{ title: string; results: Results }>): void {
  const columns = runs.map((run) => new Map(resultRows(run.results)));
  const labels = [...new Set(runs.flatMap((run) => resultRows(run.results).map(([label]) => label)))];
  const width = Math.max(...labels.map((label) => label.length));
  const cell = Math.max(
    ...runs.map((run) => run.title.length),
    ...columns.flatMap((column) => [...column.values()].map((value) => value.length)),
  );
  const line = (label: string, values: string[]) =>
    `${label.padEnd(width)}  ${values.map((value) => value.padEnd(cell)).join('  ')}`.trimEnd();
  process.stdout.write(
    `\n${line(
      '',
      runs.map((run) => run.title),
    )}\n`,
  );
  for (const label of labels)
    process.stdout.write(
      `${line(
        label,
        columns.map((column) => column.get(label) ?? '–'),
      )}\n`,
    );
  process.stdout.write(
    '\nPhases: steady and burst are when mentions were sent, drain after the last one; a time counts in the\n' +
      'phase of its first event (the tool call, the model answer, the click, the mention). Calls per turn\n' +
      'divide calls sent (ok: not answered 429) by mentions; sustainable turns/min is each method’s\n' +
      'published limit a minute (× channels for chat.postMessage) over its accepted calls per turn. Must-\n' +
      'arrive: chat.postMessage and chat.update (cards, rewrites, answers); reactions, statuses and streams\n' +
      'count as nice to have.\n',
  );
}
