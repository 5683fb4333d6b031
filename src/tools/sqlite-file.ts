import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';

/**
 * The file a `HOLDFAST_SQL_URL` names: a path, `sqlite:path` or a `file:` URI. SQLite's URI parameters
 * (`?mode=ro`, `#…`) are dropped, since holdfast decides how the file is opened.
 */
export function sqliteFileFrom(url: string, cwd = process.cwd()): string {
  if (url.startsWith('file:')) {
    const rest = url.slice('file:'.length);
    // `file:data/team.db` is relative for SQLite; the WHATWG parser would make it `/data/team.db`.
    if (rest.startsWith('//')) return fileURLToPath(url);
    return path.resolve(cwd, decodeURIComponent(rest.split(/[?#]/)[0] ?? ''));
  }
  if (url.startsWith('sqlite:'))
    return path.resolve(cwd, url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, ''));
  if (/^[a-z]+:\/\//i.test(url)) {
    throw new ConfigError(
      `HOLDFAST_SQL_URL ${url.split('://')[0]}:// is not supported; use a SQLite file path.`,
    );
  }
  return path.resolve(cwd, url);
}

/** The files SQLite keeps beside a database; each holds the same content, so each is the database. */
const siblingSuffixes = ['', '-wal', '-shm', '-journal'] as const;

/**
 * Refuses a `sql_query` file that is holdfast's own database, under any name: the same path, a symlink,
 * a hard link (same device and inode) or one of its -wal/-shm/-journal files. Reading it would hand every
 * thread's transcript and every approval to whoever can talk to the bot.
 */
export function refuseHoldfastDatabase(sqlFile: string, holdfastDatabase: string): void {
  const target = identityOf(sqlFile);
  const own = new Set([holdfastDatabase, realPathOf(holdfastDatabase)]);
  for (const base of own) {
    for (const suffix of siblingSuffixes) {
      const candidate = identityOf(`${base}${suffix}`);
      const sameFile =
        candidate.realPath === target.realPath ||
        (candidate.inode !== undefined &&
          target.inode !== undefined &&
          candidate.inode.dev === target.inode.dev &&
          candidate.inode.ino === target.inode.ino);
      if (sameFile) {
        const which = suffix === '' ? 'database' : `database's ${suffix} file`;
        throw new ConfigError(
          `HOLDFAST_SQL_URL points at holdfast's own ${which} (${holdfastDatabase}). sql_query would expose ` +
            "every thread's transcript and every approval; point HOLDFAST_SQL_URL at the team's database instead.",
        );
      }
    }
  }
}

interface FileIdentity {
  readonly realPath: string;
  readonly inode?: { readonly dev: number; readonly ino: number };
}

function identityOf(file: string): FileIdentity {
  const realPath = realPathOf(file);
  try {
    const stat = fs.statSync(realPath);
    return { realPath, inode: { dev: stat.dev, ino: stat.ino } };
  } catch {
    return { realPath };
  }
}

/** The real path, or for a file that does not exist (yet), its real directory joined with its name. */
function realPathOf(file: string): string {
  const absolute = path.resolve(file);
  try {
    return fs.realpathSync(absolute);
  } catch {
    try {
      return path.join(fs.realpathSync(path.dirname(absolute)), path.basename(absolute));
    } catch {
      return absolute;
    }
  }
}
