import { type BigIntStats, constants } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import { confinedPath, isInside } from './workdir-path.js';

export type OpenInWorkdirResult =
  | { readonly type: 'opened'; readonly handle: FileHandle; readonly size: number; readonly path: string }
  | { readonly type: 'refused'; readonly message: string };

export interface OpenInWorkdirOptions {
  readonly kind: 'file' | 'directory';
  /**
   * Runs between the path check and the open. Tests use it to change the tree in the window an attacker
   * would race for; nothing else should.
   */
  readonly afterCheck?: (checkedPath: string) => void | Promise<void>;
}

export interface CheckedEntry {
  /** What the person asked for, as they spelled it (for messages). */
  readonly requested: string;
  readonly kind: 'file' | 'directory';
  readonly dev: bigint;
  readonly ino: bigint;
}

const refused = (message: string): OpenInWorkdirResult => ({ type: 'refused', message });

/**
 * Opens a file or directory inside the workdir so that what is read is what was checked. The path check
 * (real path inside the workdir) and the open are two steps, so the open refuses to follow a symlink at
 * the last component (O_NOFOLLOW) and the opened descriptor is verified against the checked entry
 * (`verifyOpened`). A file with several hard links is refused: every link is the same file, and the
 * others can be anywhere.
 */
export async function openInWorkdir(
  workdir: string,
  requested: string,
  options: OpenInWorkdirOptions,
): Promise<OpenInWorkdirResult> {
  const root = await fs.realpath(workdir);
  const checkedPath = await confinedPath(workdir, requested);
  if (typeof checkedPath !== 'string') return refused(checkedPath.message);
  let stat: BigIntStats;
  try {
    stat = await fs.lstat(checkedPath, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return refused(`${requested} does not exist.`);
    throw error;
  }
  if (options.kind === 'file' && !stat.isFile()) return refused(`${requested} is not a file.`);
  if (options.kind === 'directory' && !stat.isDirectory()) return refused(`${requested} is not a directory.`);
  if (options.kind === 'file' && stat.nlink > 1n) return refused(tooManyLinks(requested, stat.nlink));
  const checked: CheckedEntry = { requested, kind: options.kind, dev: stat.dev, ino: stat.ino };

  await options.afterCheck?.(checkedPath);

  // O_NONBLOCK: a FIFO swapped in for a file must fail verification, not hang the open.
  const flags =
    constants.O_RDONLY |
    constants.O_NOFOLLOW |
    (options.kind === 'directory' ? constants.O_DIRECTORY : constants.O_NONBLOCK);
  let handle: FileHandle;
  try {
    handle = await fs.open(checkedPath, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR') {
      return refused(`${requested} changed while it was being opened (it is now a symbolic link); not read.`);
    }
    if (code === 'ENOENT') return refused(`${requested} disappeared while it was being opened; not read.`);
    throw error;
  }
  const problem = await verifyOpened(handle, checked, root);
  if (problem !== undefined) {
    await handle.close();
    return refused(problem);
  }
  const opened = await handle.stat();
  return { type: 'opened', handle, size: opened.size, path: checkedPath };
}

/**
 * Why an opened descriptor is not the entry that was checked, or undefined when it is: the same kind,
 * device and inode, a single link for a file, and (where /proc tells) a real path still inside the
 * workdir. A directory on the way swapped for a symlink passes O_NOFOLLOW, so these checks are what
 * catch it.
 */
async function verifyOpened(
  handle: FileHandle,
  checked: CheckedEntry,
  root: string,
): Promise<string | undefined> {
  const stat = await handle.stat({ bigint: true });
  const sameKind = checked.kind === 'file' ? stat.isFile() : stat.isDirectory();
  if (!sameKind || stat.dev !== checked.dev || stat.ino !== checked.ino) {
    return `${checked.requested} changed while it was being opened; not read.`;
  }
  if (checked.kind === 'file' && stat.nlink > 1n) return tooManyLinks(checked.requested, stat.nlink);
  const where = await descriptorPath(handle.fd);
  if (where !== undefined && !isInside(root, where)) {
    return `${checked.requested} is no longer inside the working directory; not read.`;
  }
  return undefined;
}

/** Where the kernel says a descriptor points (Linux /proc); undefined where that is not available. */
export async function descriptorPath(fd: number): Promise<string | undefined> {
  try {
    return await fs.readlink(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

function tooManyLinks(requested: string, links: bigint): string {
  return `${requested} has ${links} hard links; holdfast reads only files with a single link, since another link can be anywhere outside the working directory.`;
}
