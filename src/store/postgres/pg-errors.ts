import { StoreBusyError, StoreUnavailableError } from '../store-errors.js';

/** Deadlocks and serialisation failures are retried whole: nothing of the failed attempt was kept. */
export const retriedCodes: ReadonlySet<string> = new Set(['40P01', '40001']);

export function pgCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Network-level failures: the server is gone, restarting, or was never reachable. */
const connectionCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Server faults become the same typed errors the SQLite store throws, so callers tell people and retry the
 * same way: a lock or statement timeout is busy; a lost connection, a server shutting down, a full disk or
 * a read-only server is unavailable. Nothing was committed when one of these is thrown.
 */
export function translatePgError(error: unknown): unknown {
  if (error instanceof StoreBusyError || error instanceof StoreUnavailableError) return error;
  const code = pgCode(error);
  if (code === undefined) {
    if (error instanceof Error && /Connection terminated|connection timeout/i.test(error.message)) {
      return new StoreUnavailableError('connection_lost', { cause: error });
    }
    return error;
  }
  if (code === '55P03' || code === '57014' || retriedCodes.has(code)) {
    return new StoreBusyError('The database stayed locked too long; nothing was written.', { cause: error });
  }
  if (
    connectionCodes.has(code) ||
    code.startsWith('08') ||
    code.startsWith('53') ||
    code.startsWith('57P') ||
    code === '25006'
  ) {
    return new StoreUnavailableError(code, { cause: error });
  }
  return error;
}
