import { type Logger, pino } from 'pino';
import { onTestFinished } from 'vitest';

export interface LogEntry {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export interface TestLogger {
  readonly logger: Logger;
  /** Everything logged at debug and above, parsed. */
  readonly entries: readonly LogEntry[];
  /** Entries at warn (40) or above. */
  problems(): LogEntry[];
}

export interface TestLoggerOptions {
  /** Fail the current test if anything is logged at warn or above. */
  readonly failOnWarn?: boolean;
}

/**
 * A pino logger that prints nothing and keeps what it was told. With `failOnWarn` a warning or error
 * fails the test that made it: the happy paths must run quietly.
 */
export function createTestLogger(options: TestLoggerOptions = {}): TestLogger {
  const entries: LogEntry[] = [];
  const logger = pino(
    { level: 'debug' },
    {
      write(line: string) {
        entries.push(JSON.parse(line) as LogEntry);
      },
    },
  );
  const problems = () => entries.filter((entry) => entry.level >= 40);
  if (options.failOnWarn) {
    onTestFinished(() => {
      const found = problems();
      if (found.length > 0) {
        throw new Error(
          `unexpected log output at warn or above:\n${found.map((e) => JSON.stringify(e)).join('\n')}`,
        );
      }
    });
  }
  return { logger, entries, problems };
}
