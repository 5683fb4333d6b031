/** The figures `npm run bench` measured, as the fields of results.json it prints. */
export interface PrintedResults {
  readonly cycle_p50_ms: number;
  readonly cycle_p99_ms: number;
  readonly commits_per_cycle: number;
  readonly deliveries_per_cycle: number;
  readonly raw_commit_p50_ms: number;
  readonly raw_commit_p99_ms: number;
  readonly cycle_budget_ms: number;
  readonly wal_pages_per_cycle: number;
  readonly wal_kib_per_cycle: number;
  readonly wal_commits_per_cycle: number;
  readonly thread_length_series: ReadonlyArray<{
    readonly prior_messages: number;
    readonly cycle_p50_ms: number;
    readonly cycle_p99_ms: number;
  }>;
  readonly longest_over_shortest_thread_p50: number;
  readonly boot_pending_approvals: number;
  readonly boot_overdue_approvals: number;
  readonly boot_database_mb: number;
  readonly boot_ms: number;
  readonly boot_page_check_done_ms: number;
  readonly boot_all_overdue_expired_ms: number;
  readonly conversations: number;
  readonly suspended_10k_heap_mb: number;
  readonly pinned_10k_heap_mb: number;
  readonly pinned_over_suspended: number;
  readonly postgres?: {
    readonly cycle_p50_ms: number;
    readonly cycle_p99_ms: number;
    readonly commits_per_cycle: number;
    readonly raw_commit_p50_ms: number;
    readonly raw_commit_p99_ms: number;
    readonly commit_floor_ms: number;
    readonly cycle_over_floor: number;
  };
  readonly live_first_text_p50_ms: number;
  readonly live_first_text_p99_ms: number;
  readonly live_slack_calls_per_answer: number;
  readonly live_stream_calls_per_answer: number;
  readonly targets: Readonly<Record<string, boolean>>;
}

/** The benchmark's figures as a table for people, then each target met or missed. */
export function printResults(results: PrintedResults): void {
  const table = [
    ['cycle p50 / p99', `${results.cycle_p50_ms} ms / ${results.cycle_p99_ms} ms`],
    ['commits per cycle (outbox included)', String(results.commits_per_cycle)],
    ['deliveries per cycle (card, rewrite, answer)', String(results.deliveries_per_cycle)],
    ['raw commit p50 / p99', `${results.raw_commit_p50_ms} ms / ${results.raw_commit_p99_ms} ms`],
    ['cycle budget (3 × all commits × raw p99)', `${results.cycle_budget_ms} ms`],
    [
      'WAL pages / KiB / commits per cycle',
      `${results.wal_pages_per_cycle} / ${results.wal_kib_per_cycle} / ${results.wal_commits_per_cycle}`,
    ],
    ...results.thread_length_series.map((entry) => [
      `cycle on a thread of ${entry.prior_messages} messages p50 / p99`,
      `${entry.cycle_p50_ms} ms / ${entry.cycle_p99_ms} ms`,
    ]),
    ['longest / shortest thread p50', `${results.longest_over_shortest_thread_p50}×`],
    [
      `boot: ${results.boot_pending_approvals} pending, ${results.boot_overdue_approvals} overdue (${results.boot_database_mb} MB)`,
      `serving after ${results.boot_ms} ms; page check done ${results.boot_page_check_done_ms} ms; all expired ${results.boot_all_overdue_expired_ms} ms`,
    ],
    [`${results.conversations} suspended (SQLite only)`, `${results.suspended_10k_heap_mb} MB heap`],
    [`${results.conversations} parked in memory`, `${results.pinned_10k_heap_mb} MB heap`],
    ['pinned / suspended', `${results.pinned_over_suspended}×`],
    ...(results.postgres
      ? [
          [
            'PostgreSQL cycle p50 / p99',
            `${results.postgres.cycle_p50_ms} ms / ${results.postgres.cycle_p99_ms} ms`,
          ],
          ['PostgreSQL commits per cycle', String(results.postgres.commits_per_cycle)],
          [
            'PostgreSQL raw commit p50 / p99',
            `${results.postgres.raw_commit_p50_ms} ms / ${results.postgres.raw_commit_p99_ms} ms`,
          ],
          [
            'PostgreSQL floor (commits × raw p50)',
            `${results.postgres.commit_floor_ms} ms (cycle p50 is ${results.postgres.cycle_over_floor}×)`,
          ],
        ]
      : []),
    [
      'mention → first streamed text p50 / p99',
      `${results.live_first_text_p50_ms} ms / ${results.live_first_text_p99_ms} ms`,
    ],
    [
      'Slack calls per streamed answer (stream calls)',
      `${results.live_slack_calls_per_answer} (${results.live_stream_calls_per_answer})`,
    ],
  ];
  const width = Math.max(...table.map(([label]) => (label ?? '').length));
  for (const [label, value] of table) process.stdout.write(`${(label ?? '').padEnd(width)}  ${value}\n`);
  for (const [target, met] of Object.entries(results.targets)) {
    process.stdout.write(`${met ? 'met   ' : 'MISSED'}  ${target}\n`);
  }
}
