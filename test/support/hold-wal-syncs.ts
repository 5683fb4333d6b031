import fs from 'node:fs';
import { onTestFinished, vi } from 'vitest';

type SyncCallback = (error: NodeJS.ErrnoException | null) => void;

/** Holds every WAL fsync of this thread until the test lets it finish (or fail), or the test ends. */
export function holdWalSyncs() {
  const held: Array<{ fd: number; done: SyncCallback }> = [];
  const spy = vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, done: SyncCallback) => {
    held.push({ fd, done });
  }) as typeof fs.fdatasync);
  // A test that fails while syncs are held must not leave the next test's writes waiting forever.
  onTestFinished(() => spy.mockRestore());
  return {
    held,
    spy,
    /** Really syncs the held descriptors, then tells their callers. */
    release(error?: NodeJS.ErrnoException) {
      for (const { fd, done } of held.splice(0)) {
        if (!error) fs.fdatasyncSync(fd);
        done(error ?? null);
      }
    },
    /** Lets only the sync begun last finish. */
    releaseLast() {
      const last = held.pop();
      if (!last) throw new Error('no sync is held');
      fs.fdatasyncSync(last.fd);
      last.done(null);
    },
  };
}
