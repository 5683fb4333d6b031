import { LogLevel, type Logger as SlackLogger } from '@slack/logger';
import type { Logger } from 'pino';

/**
 * Bolt and the Web API client log through pino too; the logger passed in redacts every line (see
 * `redactingLogger`), so tokens they print never reach the log.
 */
export function boltLogger(logger: Logger): SlackLogger {
  let level = LogLevel.INFO;
  const text = (parts: unknown[]) =>
    parts.map((part) => (typeof part === 'string' ? part : safeJson(part))).join(' ');
  return {
    debug: (...parts: unknown[]) => logger.debug(text(parts)),
    info: (...parts: unknown[]) => logger.info(text(parts)),
    warn: (...parts: unknown[]) => logger.warn(text(parts)),
    error: (...parts: unknown[]) => logger.error(text(parts)),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

function safeJson(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
