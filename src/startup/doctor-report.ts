import type { CheckReport } from './startup-check.js';

const marks = { ok: '✓', problem: '✗', warning: '!', skipped: '–' } as const;

/**
 * `holdfast doctor`'s output: one line per check (a problem may carry an indented detail block), and
 * whether any failed. Plain text, so it reads the same in a terminal, a CI log and a support ticket.
 */
export function formatDoctorReport(reports: readonly CheckReport[]): { lines: string[]; failed: boolean } {
  const width = Math.max(...reports.map((report) => report.name.length));
  const lines = reports.map(
    (report) => `${marks[report.outcome.type]} ${report.name.padEnd(width)}  ${describeOutcome(report)}`,
  );
  return { lines, failed: reports.some((report) => report.outcome.type === 'problem') };
}

function describeOutcome({ outcome }: CheckReport): string {
  switch (outcome.type) {
    case 'ok':
      return outcome.detail;
    case 'problem':
    case 'warning':
      return joinFix(outcome.problem, outcome.fix);
    case 'skipped':
      return `skipped: ${outcome.reason}`;
  }
}

/** "The problem. What to do." A problem ending in a detail block keeps the fix on a line of its own. */
export function joinFix(problem: string, fix: string): string {
  if (!fix) return problem;
  return problem.endsWith('\n') ? `${problem}  ${fix}` : `${problem}. ${fix}`;
}
