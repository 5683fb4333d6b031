import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.js';
import { resultOf, toolContext } from '../../test/support/tool-context.js';
import { createListFilesTool } from './list-files.js';
import { createReadFileTool } from './read-file.js';

/** A workdir with notes in it, and beside it (outside) a secret and a directory holding another one. */
function workspace() {
  const root = tempDir().path;
  const workdir = path.join(root, 'work');
  const outside = path.join(root, 'outside');
  fs.mkdirSync(path.join(workdir, 'logs'), { recursive: true });
  fs.mkdirSync(path.join(outside, 'logs'), { recursive: true });
  fs.writeFileSync(path.join(workdir, 'notes.txt'), 'deploy notes');
  fs.writeFileSync(path.join(workdir, 'logs', 'app.log'), 'app log');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'do not read');
  fs.writeFileSync(path.join(outside, 'logs', 'app.log'), 'do not read either');
  return { root, workdir, outside };
}

async function read(workdir: string, requested: string, afterCheck?: (checked: string) => void) {
  return resultOf(createReadFileTool(workdir, { afterCheck }), { path: requested }, toolContext());
}

describe('read_file and links', () => {
  it('refuses a hard link to a file outside the workdir', async () => {
    const { workdir, outside } = workspace();
    fs.linkSync(path.join(outside, 'secret.txt'), path.join(workdir, 'innocent.txt'));
    expect(await read(workdir, 'innocent.txt')).toBe(
      'innocent.txt has 2 hard links; holdfast reads only files with a single link, since another link can be anywhere outside the working directory.',
    );
  });

  it('refuses a symlink swapped in for the file after it was checked', async () => {
    const { workdir, outside } = workspace();
    const result = await read(workdir, 'notes.txt', (checked) => {
      fs.rmSync(checked);
      fs.symlinkSync(path.join(outside, 'secret.txt'), checked);
    });
    expect(result).toBe('notes.txt changed while it was being opened (it is now a symbolic link); not read.');
  });

  it('refuses a directory on the way swapped for a symlink to outside after the check', async () => {
    const { workdir, outside } = workspace();
    const result = await read(workdir, 'logs/app.log', () => {
      fs.renameSync(path.join(workdir, 'logs'), path.join(workdir, 'logs.old'));
      fs.symlinkSync(path.join(outside, 'logs'), path.join(workdir, 'logs'));
    });
    expect(result).toBe('logs/app.log changed while it was being opened; not read.');
  });

  it('refuses a file whose directory was moved out of the workdir after the check', async () => {
    const { workdir, outside } = workspace();
    const result = await read(workdir, 'logs/app.log', () => {
      fs.rmSync(path.join(outside, 'logs'), { recursive: true });
      fs.renameSync(path.join(workdir, 'logs'), path.join(outside, 'logs'));
      fs.symlinkSync(path.join(outside, 'logs'), path.join(workdir, 'logs'));
    });
    expect(result).toBe('logs/app.log is no longer inside the working directory; not read.');
  });

  it('reads and lists names that merely start with two dots', async () => {
    const { workdir } = workspace();
    fs.writeFileSync(path.join(workdir, '..notes'), 'dotted notes');
    fs.mkdirSync(path.join(workdir, '..cache'));
    fs.writeFileSync(path.join(workdir, '..cache', 'entry'), 'cached');
    expect(await read(workdir, '..notes')).toBe('dotted notes');
    expect(await read(workdir, '..cache/entry')).toBe('cached');
    const list = createListFilesTool(workdir);
    expect(await resultOf(list, { path: '..cache' }, toolContext())).toBe('..cache:\nentry');
  });
});

describe('list_files and links', () => {
  it('refuses a directory swapped for a symlink to outside after the check', async () => {
    const { workdir, outside } = workspace();
    const list = createListFilesTool(workdir, {
      afterCheck: () => {
        fs.renameSync(path.join(workdir, 'logs'), path.join(workdir, 'logs.old'));
        fs.symlinkSync(path.join(outside, 'logs'), path.join(workdir, 'logs'));
      },
    });
    expect(await resultOf(list, { path: 'logs' }, toolContext())).toBe(
      'logs changed while it was being opened (it is now a symbolic link); not read.',
    );
  });
});
