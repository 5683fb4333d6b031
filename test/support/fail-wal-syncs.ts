import fs from 'node:fs';
import { onTestFinished, vi } from 'vitest';

/**
 * Makes every `fdatasync` of this thread fail as a dying disk does (EIO) until `restore`, or the end of
 * the test: the WAL syncs of holdfast's main connection (see WalSync) then fail. A worker thread's own
 * `fs` is not touched.
 */
export function failWalSyncs(): { restore(): void } {
  const eio = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
  const failing = vi
    .spyOn(fs, 'fdatasync')
    .mockImplementation(((_fd: number, done: (error: Error | null) => void) =>
      done(eio)) as typeof fs.fdatasync);
  onTestFinished(() => failing.mockRestore());
  return { restore: () => failing.mockRestore() };
}
