import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.js';
import { resultOf, toolContext } from '../../test/support/tool-context.js';
import { createListFilesTool } from './list-files.js';
import { createReadFileTool } from './read-file.js';

function workspace() {
  const root = tempDir().path;
  const workdir = path.join(root, 'work');
  fs.mkdirSync(path.join(workdir, 'logs'), { recursive: true });
  fs.writeFileSync(path.join(workdir, 'README.md'), '# ops notes');
  fs.writeFileSync(path.join(workdir, 'logs', 'app.log'), 'line 1\nline 2\n');
  fs.writeFileSync(path.join(root, 'secret.txt'), 'do not read');
  fs.symlinkSync(path.join(root, 'secret.txt'), path.join(workdir, 'escape'));
  fs.symlinkSync(path.join(workdir, 'README.md'), path.join(workdir, 'readme-link'));
  return { root, workdir, read: createReadFileTool(workdir), list: createListFilesTool(workdir) };
}

describe('read_file and list_files', () => {
  it('run without approval', async () => {
    const { read, list } = workspace();
    expect(await read.permission({ path: 'README.md' }, toolContext())).toMatchObject({ type: 'allow' });
    expect(await list.permission({ path: '.' }, toolContext())).toMatchObject({ type: 'allow' });
  });

  it('read and list inside the workdir, following links that stay inside', async () => {
    const { read, list } = workspace();
    expect(await resultOf(read, { path: 'README.md' }, toolContext())).toBe('# ops notes');
    expect(await resultOf(read, { path: 'readme-link' }, toolContext())).toBe('# ops notes');
    expect(await resultOf(read, { path: 'logs/../logs/app.log' }, toolContext())).toBe('line 1\nline 2\n');
    expect(await resultOf(list, { path: '.' }, toolContext())).toBe(
      '.:\nescape@\nlogs/\nreadme-link@\nREADME.md',
    );
  });

  it.each([
    ['../secret.txt', 'is outside the working directory'],
    ['logs/../../secret.txt', 'is outside the working directory'],
    ['escape', 'links outside the working directory'],
    ['missing.txt', 'does not exist'],
  ])('refuse %s', async (requested, reason) => {
    const { read } = workspace();
    const result = await resultOf(read, { path: requested }, toolContext());
    expect(result).toContain(reason);
    expect(result).not.toContain('do not read');
  });

  it('refuse absolute paths elsewhere', async () => {
    const { read, list, root } = workspace();
    expect(await resultOf(read, { path: path.join(root, 'secret.txt') }, toolContext())).toContain('outside');
    expect(await resultOf(list, { path: '/etc' }, toolContext())).toContain('outside');
  });
});
