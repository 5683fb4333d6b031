import { describeError, HoldfastError } from '../errors.js';
import { describeListenFailure, isListenError } from '../http/port-unavailable.js';
import { DatabaseOpenError } from '../store/store-errors.js';
import { joinFix } from './doctor-report.js';

/**
 * What an operator reads when start-up fails: the cause and the fix, naming the variable to change, with
 * no stack trace (`debug` adds it, for a bug report). Failures holdfast foresaw carry their own words;
 * anything else is its message and a pointer to debug.
 */
export function describeStartupFailure(error: unknown, options: { debug: boolean }): string {
  const text = explain(error);
  if (!options.debug) return text;
  const stack = error instanceof Error ? error.stack : undefined;
  return stack ? `${text}\n\n${stack}` : text;
}

function explain(error: unknown): string {
  if (error instanceof DatabaseOpenError) return `database (HOLDFAST_DB): ${databaseWords(error)}`;
  if (error instanceof HoldfastError) return error.message;
  if (isListenError(error)) {
    const port = typeof error.port === 'number' ? error.port : Number.NaN;
    const outcome = describeListenFailure(error, { port, purpose: 'a listener' });
    if (outcome) return `port: ${joinFix(outcome.problem, outcome.fix)}`;
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = (error as NodeJS.ErrnoException | undefined)?.path;
  if (where && (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')) {
    return `holdfast may not write ${where} (${code}). Give the user holdfast runs as write access to it, or point the setting that names it (HOLDFAST_DB, HOLDFAST_WORKDIR) elsewhere.`;
  }
  if (where && code === 'ENOSPC') return `the disk holding ${where} is full (ENOSPC). Free some space.`;
  return `${describeError(error)}\n(This was not expected; start with HOLDFAST_LOG_LEVEL=debug to see where it happened.)`;
}

function databaseWords(error: DatabaseOpenError): string {
  switch (error.code) {
    case 'database_unreadable':
      return `${error.message}. Check that holdfast may read and write the file and its folder, or set HOLDFAST_DB to another file.`;
    case 'database_unreachable':
      return `${error.message}. Check the host, port and database name in HOLDFAST_DB, that the server is running and that this machine may connect to it (firewall, sslmode).`;
    case 'database_auth_failed':
      return `${error.message}. Check the user and password in HOLDFAST_DB (a password with special characters must be percent-encoded).`;
    case 'database_corrupt':
    case 'database_locked':
    case 'database_too_new':
      return error.message;
  }
}
