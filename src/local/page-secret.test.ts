import { chmodSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.js';
import { loadPageSecret } from './page-secret.js';

const fixed = (letter: string) => () => letter.repeat(43);

describe('loadPageSecret', () => {
  it('creates an owner-only file on first start and reads it back on the next', () => {
    const file = tempDir().file('local-workspace.secret');
    expect(loadPageSecret(file, fixed('a'))).toBe('a'.repeat(43));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadPageSecret(file, fixed('b'))).toBe('a'.repeat(43));
  });

  it('replaces a secret that others can read', () => {
    const file = tempDir().file('local-workspace.secret');
    writeFileSync(file, `${'a'.repeat(43)}\n`, { mode: 0o644 });
    chmodSync(file, 0o644);
    expect(loadPageSecret(file, fixed('b'))).toBe('b'.repeat(43));
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('replaces a malformed file', () => {
    const file = tempDir().file('local-workspace.secret');
    writeFileSync(file, 'hunter2\n', { mode: 0o600 });
    expect(loadPageSecret(file, fixed('b'))).toBe('b'.repeat(43));
  });

  it('does not follow a link planted where the secret goes, and leaves its target alone', () => {
    const dir = tempDir();
    const planted = dir.file('planted');
    writeFileSync(planted, `${'a'.repeat(43)}\n`, { mode: 0o600 });
    symlinkSync(planted, dir.file('local-workspace.secret'));
    expect(loadPageSecret(dir.file('local-workspace.secret'), fixed('b'))).toBe('b'.repeat(43));
    expect(readFileSync(planted, 'utf8')).toBe(`${'a'.repeat(43)}\n`);
  });
});
