import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { describeError } from '../errors.js';
import { type CheckOutcome, ok, problem, type StartupCheck } from './startup-check.js';

export interface DatabaseCheckOptions {
  readonly file: string;
  /**
   * Reads the file without changing it and returns what SQLite's `quick_check` found wrong (nothing when
   * the pages are sound); throws when SQLite cannot read it at all. `doctor` passes one; start-up does not,
   * because opening the database right after checks every page anyway.
   */
  readonly inspect?: (file: string) => readonly string[];
}

const restore =
  'Restore it from a backup (stop holdfast, copy the backup over it, start again), or set HOLDFAST_DB to another file.';

/**
 * Whether holdfast can keep its database at `HOLDFAST_DB`: the folder can be created and written (SQLite
 * writes `-wal` and `-shm` files beside the database), the file is readable and writable, and, when
 * inspected, its pages are sound. Checked without creating or changing anything.
 */
export function databaseCheck(options: DatabaseCheckOptions): StartupCheck {
  return {
    name: 'database',
    async run() {
      const { file } = options;
      const folder = path.dirname(file);
      const existing = nearestExisting(folder);
      if (typeof existing !== 'string') return existing;
      if (!statSync(existing).isDirectory()) {
        return problem(
          `HOLDFAST_DB=${file} cannot be created: ${existing} is a file, not a folder`,
          'Set HOLDFAST_DB to a path inside a folder.',
        );
      }
      const folderProblem = writable(existing, `the folder ${existing}`);
      if (folderProblem) return folderProblem;
      const stats = statOrUndefined(file);
      if (!stats) return ok(`${file} will be created`);
      if (!stats.isFile()) {
        return problem(`HOLDFAST_DB=${file} is not a file`, 'Set HOLDFAST_DB to the database file itself.');
      }
      for (const candidate of [file, `${file}-wal`, `${file}-shm`]) {
        if (!statOrUndefined(candidate)) continue;
        const fileProblem = writable(candidate, candidate);
        if (fileProblem) return fileProblem;
      }
      if (stats.size === 0) {
        return problem(`HOLDFAST_DB=${file} is empty (0 bytes), so its data is gone`, restore);
      }
      return options.inspect ? inspected(file, options.inspect) : ok(`${file} is writable`);
    },
  };
}

function inspected(file: string, inspect: (file: string) => readonly string[]): CheckOutcome {
  let damage: readonly string[];
  try {
    damage = inspect(file);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      return problem(
        `HOLDFAST_DB=${file} is not a usable SQLite database (${describeError(error)})`,
        restore,
      );
    }
    return problem(`HOLDFAST_DB=${file} cannot be read: ${describeError(error)}`, restore);
  }
  if (damage.length > 0) return problem(`HOLDFAST_DB=${file} is damaged: ${damage.join('; ')}`, restore);
  return ok(`${file} is writable and its pages are sound`);
}

/** Where the problem is, with what to do about it; undefined when holdfast may write there. */
function writable(target: string, what: string): CheckOutcome | undefined {
  try {
    accessSync(target, constants.W_OK | constants.R_OK);
    return undefined;
  } catch (error) {
    return unwritable(what, error);
  }
}

function unwritable(what: string, error: unknown): CheckOutcome {
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
  if (code === 'EROFS') {
    return problem(
      `HOLDFAST_DB: ${what} is on a read-only file system`,
      'Mount a writable volume for the database and point HOLDFAST_DB into it.',
    );
  }
  const user = process.getuid ? ` (uid ${process.getuid()})` : '';
  return problem(
    `HOLDFAST_DB: holdfast cannot write to ${what} (${code})`,
    `Give the user holdfast runs as${user} read and write access to it, or set HOLDFAST_DB to a file in a writable folder.`,
  );
}

/** The folder itself or the closest ancestor that exists (where `mkdir -p` would start). */
function nearestExisting(folder: string): string | CheckOutcome {
  let current = folder;
  for (;;) {
    try {
      statSync(current);
      return current;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') return unwritable(`the folder ${path.dirname(current)}`, error);
    }
    const parent = path.dirname(current);
    if (parent === current) return current;
    current = parent;
  }
}

function statOrUndefined(target: string) {
  try {
    return statSync(target);
  } catch {
    return undefined;
  }
}
