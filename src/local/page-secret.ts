import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const secretShape = /^[A-Za-z0-9_-]{43}$/;

/** 32 random bytes, base64url: long enough that guessing is hopeless, short enough for a URL. */
const newPageSecret = (): string => randomBytes(32).toString('base64url');

/**
 * The secret a browser must show before the local workspace lets it act (the token in the URL printed
 * at start, then a cookie). It is kept in an owner-only file beside the workspace database rather than
 * made afresh each run, so stopping and starting `npm start` keeps an open tab and its pending card
 * working, the way the README promises; only the owner can read the file, and the owner can already run
 * anything on this machine. Deleting the file gives the next start a new secret and signs every tab out.
 */
export function loadPageSecret(file: string, generate: () => string = newPageSecret): string {
  const existing = readOwnerOnly(file);
  if (existing) return existing;
  const secret = generate();
  rmSync(file, { force: true });
  // `wx` with an explicit mode: the file never exists, even for an instant, readable by others.
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}

/** The stored secret, or undefined when it is missing, malformed, or readable by anyone but the owner. */
function readOwnerOnly(file: string): string | undefined {
  let fd: number;
  try {
    // No following links: a link planted in the data directory must not choose the secret.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP') return undefined;
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    // Windows has no owner-only mode bits to check; elsewhere a secret others can read protects nothing.
    const private_ = process.platform === 'win32' || (stat.mode & 0o077) === 0;
    if (!stat.isFile() || !private_) return undefined;
    const text = readFileSync(fd, 'utf8').trim();
    return secretShape.test(text) ? text : undefined;
  } finally {
    closeSync(fd);
  }
}
