import { describeError, HoldfastError } from '../errors.js';
import { joinFix } from './doctor-report.js';

/**
 * What one check found. A problem names what is wrong and what to do about it, in words an operator can
 * act on without reading code: the variable to change and how.
 */
export type CheckOutcome =
  | { readonly type: 'ok'; readonly detail: string }
  | { readonly type: 'problem'; readonly problem: string; readonly fix: string }
  /**
   * Worth saying but not worth refusing to start over: a provider answering 503 or not at all (refusing
   * would also stop every approval already waiting), or, for doctor, a port holdfast itself may hold.
   */
  | { readonly type: 'warning'; readonly problem: string; readonly fix: string }
  /** The check does not apply to this configuration, or could not tell (a proxy hid what it needs). */
  | { readonly type: 'skipped'; readonly reason: string };

/**
 * One thing a first install can get wrong, checked before holdfast serves anything. Start-up and
 * `holdfast doctor` run the same list; readiness probes can reuse the ones that stay meaningful later.
 */
export interface StartupCheck {
  /** Short and stable (`database`, `slack`, `model`): the first word of the check's line. */
  readonly name: string;
  run(): Promise<CheckOutcome>;
}

export interface CheckReport {
  readonly name: string;
  readonly outcome: CheckOutcome;
}

export const ok = (detail: string): CheckOutcome => ({ type: 'ok', detail });
export const problem = (problem: string, fix: string): CheckOutcome => ({ type: 'problem', problem, fix });
export const skipped = (reason: string): CheckOutcome => ({ type: 'skipped', reason });
export const warning = (problem: string, fix: string): CheckOutcome => ({ type: 'warning', problem, fix });

/**
 * Runs every check at once and reports each, in the order given. A check that throws is a problem of
 * its own rather than a crash: a half-run list would hide the other things an operator needs to fix.
 */
export async function runChecks(checks: readonly StartupCheck[]): Promise<CheckReport[]> {
  return Promise.all(
    checks.map(async (check) => {
      try {
        return { name: check.name, outcome: await check.run() };
      } catch (error) {
        const outcome = problem(
          `the check failed unexpectedly: ${describeError(error)}`,
          'Run again with HOLDFAST_LOG_LEVEL=debug for details.',
        );
        return { name: check.name, outcome };
      }
    }),
  );
}

/** Start-up stops: one line per problem, each with what to do. */
export class StartupCheckError extends HoldfastError {
  readonly code = 'startup_check_failed';
  constructor(readonly problems: readonly CheckReport[]) {
    super(problems.map(describeReport).join('\n'));
  }
}

/** Throws when any check found a problem; warnings and skips are returned for the caller to log. */
export async function requireChecks(checks: readonly StartupCheck[]): Promise<CheckReport[]> {
  const reports = await runChecks(checks);
  const problems = reports.filter((report) => report.outcome.type === 'problem');
  if (problems.length > 0) throw new StartupCheckError(problems);
  return reports;
}

/** `slack: SLACK_BOT_TOKEN was rejected by Slack (invalid_auth). Copy the token again …` */
export function describeReport(report: CheckReport): string {
  const { outcome } = report;
  switch (outcome.type) {
    case 'ok':
      return `${report.name}: ${outcome.detail}`;
    case 'problem':
    case 'warning':
      return `${report.name}: ${joinFix(outcome.problem, outcome.fix)}`;
    case 'skipped':
      return `${report.name}: skipped (${outcome.reason})`;
  }
}
