/** What `npm run bench:load` prints of its results (`bench/load-results.json` holds them all). */

export function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

export type Results = Record<string, unknown> & { readonly targets: Record<string, boolean | null> };

export function printResults(r: Results): void {
  const rows: Array<[string, string]> = [
    ['mentions sent / acked', `${r.mentions_sent} / ${r.mentions_acked} (${r.sent_per_s}/s sent)`],
    [
      'redelivered (not acked with 200)',
      `${r.redeliveries} (${r.mentions_never_acked} still not acked; first deliveries ${JSON.stringify(r.first_deliveries)})`,
    ],
    ['ack p50 / p99 (mentions)', `${r.ack_p50_ms} ms / ${r.ack_p99_ms} ms`],
    ['ack p99 by second of the load (ms)', (r.ack_p99_ms_by_second as number[]).join(' ')],
    ['ack p50 / p99 (clicks)', `${r.click_ack_p50_ms} ms / ${r.click_ack_p99_ms} ms (${r.clicks} clicks)`],
    ['turns/s while mentions arrive', String(r.turns_per_s)],
    ['turns/s to the last answer', String(r.turns_per_s_to_last_answer)],
    [
      'drain after the last mention',
      r.drained ? `${r.drain_s} s` : `NOT drained: ${r.unanswered} unanswered`,
    ],
    ['refusals (ephemeral replies)', String(r.refusals_ephemeral)],
    ['failed turns (notices posted)', String(r.failure_notices)],
    [
      'duplicates (keys, answers, cards)',
      `${r.duplicate_keys}, ${r.duplicate_answers}, ${r.duplicate_cards}`,
    ],
    ['order violations', `${r.order_violations} in ${r.ordered_pairs_checked} ordered pairs`],
    ['app RSS peak / end', `${r.app_rss_peak_mb} MB / ${r.app_rss_end_mb} MB`],
    ['app CPU', `${r.app_cpu_cores} cores busy, ${r.app_cpu_ms_per_answer} ms per answer`],
    ['/health idle p50', `${r.health_idle_p50_ms} ms`],
    [
      '/health under load p50/p99/max',
      `${r.health_load_p50_ms} / ${r.health_load_p99_ms} / ${r.health_load_max_ms} ms`,
    ],
  ];
  process.stdout.write('\n');
  for (const [label, value] of rows) process.stdout.write(`${label.padEnd(34)}  ${value}\n`);
  for (const [target, met] of Object.entries(r.targets)) {
    process.stdout.write(`${met === null ? 'n/a   ' : met ? 'met   ' : 'MISSED'}  ${target}\n`);
  }
}
