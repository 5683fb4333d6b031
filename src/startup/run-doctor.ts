import type { Config } from '../config.js';
import { createRedactor } from '../secrets/index.js';
import { describeStartupFailure } from './describe-startup-failure.js';
import { formatDoctorReport } from './doctor-report.js';
import { type CheckReport, ok, problem, runChecks, type StartupCheck } from './startup-check.js';

export interface DoctorOptions {
  /** Reads the configuration (`loadConfig` over the environment). */
  readonly loadConfig: () => Config;
  /** The start-up checks for it; loading plugins may fail here. */
  readonly checks: (config: Config) => Promise<StartupCheck[]>;
  readonly write: (line: string) => void;
}

/**
 * `holdfast doctor`: the start-up checks against the configuration, one line each, without starting
 * anything. Returns the exit code: 1 when any check fails.
 */
export async function runDoctor(options: DoctorOptions): Promise<number> {
  const reports = await diagnose(options);
  const secrets = reports.config?.secrets ?? [];
  const { redact } = createRedactor({ secrets });
  const { lines, failed } = formatDoctorReport(reports.found);
  for (const line of lines) options.write(redact(line));
  return failed ? 1 : 0;
}

async function diagnose(options: DoctorOptions): Promise<{ config?: Config; found: CheckReport[] }> {
  let config: Config;
  try {
    config = options.loadConfig();
  } catch (error) {
    return { found: [{ name: 'config', outcome: failure(error) }] };
  }
  const model = config.model.type === 'openai' ? `model ${config.model.model}` : 'the demo model';
  const found: CheckReport[] = [{ name: 'config', outcome: ok(`${config.slack.type} mode, ${model}`) }];
  let checks: StartupCheck[];
  try {
    checks = await options.checks(config);
  } catch (error) {
    return { config, found: [...found, { name: 'plugins', outcome: failure(error) }] };
  }
  return { config, found: [...found, ...(await runChecks(checks))] };
}

/** A failure thrown before the checks could run, as a problem line (its message already says what to do). */
function failure(error: unknown) {
  const text = describeStartupFailure(error, { debug: false }).replace(/\n/g, '\n  ');
  return problem(text, '');
}
