import { LogLevel, type Logger as SlackLogger } from '@slack/logger';
import type { Logger } from 'pino';
import { redactSecrets } from './text/index.js';

/** Bolt and the Web API client log through pino too, with tokens redacted from whatever they print. */
export function boltLogger(logger: Logger): SlackLogger {
  let level = LogLevel.INFO;
  const text = (parts: unknown[]) =>
    redactSecrets(parts.map((part) => (typeof part === 'string' ? part : safeJson(part))).join(' '));
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
