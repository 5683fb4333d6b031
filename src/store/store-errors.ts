import { HoldfastError } from '../errors.js';

/** The database file cannot be used; start-up stops and the message names the file. */
export abstract class DatabaseOpenError extends HoldfastError {
  abstract override readonly code:
    | 'database_too_new'
    | 'database_corrupt'
    | 'database_locked'
    | 'database_unreadable'
    | 'database_unreachable'
    | 'database_auth_failed';
  constructor(
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class DatabaseTooNewError extends DatabaseOpenError {
  readonly code = 'database_too_new';
  constructor(
    file: string,
    readonly fileVersion: number,
    readonly supportedVersion: number,
  ) {
    super(
      file,
      `Database ${file} has schema version ${fileVersion}, but this holdfast only knows up to ${supportedVersion}. ` +
        'It was written by a newer release: upgrade holdfast, or point HOLDFAST_DB at another file.',
    );
  }
}

export class DatabaseCorruptError extends DatabaseOpenError {
  readonly code = 'database_corrupt';
  constructor(file: string, detail: string, options?: { cause?: unknown }) {
    super(
      file,
      `Database ${file} is not a usable SQLite database (${detail}). Restore it from a backup.`,
      options,
    );
  }
}

export class DatabaseLockedError extends DatabaseOpenError {
  readonly code = 'database_locked';
  constructor(file: string, options?: { cause?: unknown }) {
    super(
      file,
      `Database ${file} is locked by another process. Stop the other holdfast (or the tool holding it) and retry.`,
      options,
    );
  }
}

export class DatabaseUnreadableError extends DatabaseOpenError {
  readonly code = 'database_unreadable';
  constructor(file: string, detail: string, options?: { cause?: unknown }) {
    super(file, `Database ${file} cannot be opened: ${detail}`, options);
  }
}

/** The PostgreSQL server named by HOLDFAST_DB could not be reached (or has no such database). */
export class DatabaseUnreachableError extends DatabaseOpenError {
  readonly code = 'database_unreachable';
  constructor(target: string, detail: string, options?: { cause?: unknown }) {
    super(target, `The PostgreSQL server at ${target} cannot be reached: ${detail}`, options);
  }
}

/** The PostgreSQL server refused the user and password in HOLDFAST_DB. */
export class DatabaseAuthError extends DatabaseOpenError {
  readonly code = 'database_auth_failed';
  constructor(target: string, detail: string, options?: { cause?: unknown }) {
    super(target, `The PostgreSQL server at ${target} refused the credentials: ${detail}`, options);
  }
}

/** A write could not get the lock within busy_timeout. Nothing was written; the caller may retry. */
export class StoreBusyError extends HoldfastError {
  readonly code = 'store_busy';
}

/**
 * The database cannot take writes right now: the disk is full, the file became read-only, or I/O fails.
 * Nothing was written; the caller tells the person and retries once the fault clears.
 */
export class StoreUnavailableError extends HoldfastError {
  readonly code = 'store_unavailable';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`The database cannot be written (${reason}); nothing was saved.`, options);
  }
}

/**
 * A write failed on disk earlier in this process (`reason`: its SQLite code): nothing more is written
 * until a restart, which recovers from what the disk really holds.
 */
export class StoreStoppedError extends StoreUnavailableError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.message =
      `A write to the database failed on disk (${reason}), so this process writes nothing more until ` +
      'it is restarted; nothing was saved.';
  }
}

/** A fault that passes: a retry after it clears succeeds without a restart. */
export function isStoreFault(error: unknown): error is StoreBusyError | StoreUnavailableError {
  return error instanceof StoreBusyError || error instanceof StoreUnavailableError;
}

/** A row holding JSON did not parse: the file was edited by hand or by a buggy release. */
export class StoredRowInvalidError extends HoldfastError {
  readonly code = 'stored_row_invalid';
  constructor(
    readonly table: string,
    readonly key: string,
    detail: string,
  ) {
    super(`Row ${key} in ${table} holds invalid data: ${detail}`);
  }
}

/** The turn is no longer ours: its lease lapsed and another process took it over. */
export class LeaseLostError extends HoldfastError {
  readonly code = 'lease_lost';
  constructor(readonly turnId: string) {
    super(`Turn ${turnId} is no longer held by this process`);
  }
}
