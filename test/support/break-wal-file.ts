import fs from 'node:fs';
import { onTestFinished } from 'vitest';

/**
 * Makes the disk refuse SQLite's writes to `databaseFile`'s WAL, as a dying disk does, until `restore`
 * or the end of the test: the descriptor SQLite holds on the log (in this process) is swapped for a
 * read-only one on the same file, so its next write fails with an I/O error inside COMMIT. `restore`
 * swaps a writable one back, and SQLite would then write again as if nothing had happened.
 */
export function breakWalFile(databaseFile: string): { restore(): void } {
  const wal = fs.realpathSync(`${databaseFile}-wal`);
  const fd = fs
    .readdirSync('/proc/self/fd')
    .map(Number)
    .find((candidate) => linkOf(candidate) === wal);
  if (fd === undefined) throw new Error(`no descriptor of this process is open on ${wal}`);
  reopenAs(fd, wal, 'r');
  let broken = true;
  const restore = () => {
    if (!broken) return;
    broken = false;
    reopenAs(fd, wal, 'r+');
  };
  onTestFinished(restore);
  return { restore };
}

function linkOf(fd: number): string | undefined {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/** Closes `fd` and opens `file` again under the same number (the lowest free one, which it then is). */
function reopenAs(fd: number, file: string, flags: 'r' | 'r+'): void {
  fs.closeSync(fd);
  const spare: number[] = [];
  try {
    for (;;) {
      const opened = fs.openSync(file, flags);
      if (opened === fd) return;
      spare.push(opened);
      if (spare.length > 64) throw new Error(`could not open ${file} again as descriptor ${fd}`);
    }
  } finally {
    for (const extra of spare) fs.closeSync(extra);
  }
}
