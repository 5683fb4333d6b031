import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';

export interface TempDir {
  readonly path: string;
  /** A path inside the directory (nothing is created). */
  file(name: string): string;
}

/** A fresh directory for the current test, removed when the test finishes. Call it inside a test. */
export function tempDir(prefix = 'holdfast-test-'): TempDir {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return { path: dir, file: (name) => path.join(dir, name) };
}
