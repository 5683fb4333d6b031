import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', 'src');

function sources(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.includes('.test.'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The top-level folders of `src/` a production file imports from (its own excluded). */
function importedFolders(file: string): Set<string> {
  const own = relative(root, file).split('/')[0];
  const folders = new Set<string>();
  for (const match of readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
    const target = relative(root, resolve(dirname(file), match[1] as string)).split('/');
    if (target.length > 1 && target[0] !== own && target[0] !== '..') folders.add(target[0] as string);
  }
  return folders;
}

/** The folders that decide and keep: people are ids in them, and only the chat adapters write mentions. */
const core = ['agent', 'approvals', 'runtime', 'store', 'outbox', 'tools', 'audit'];

describe('the folders of src/', () => {
  it('the core writes no Slack mention, and reads none back, outside the chat adapters', () => {
    const offenders = core
      .flatMap((folder) => sources(folder))
      .filter((file) => /<@|<#|<!subteam/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
  });

  it.each([
    // The store keeps records; what decides and what delivers depends on it, never the reverse.
    ['store', ['agent', 'approvals', 'runtime', 'outbox', 'slack', 'local', 'llm', 'mcp', 'startup']],
    ['outbox', ['slack', 'local', 'llm', 'mcp', 'startup', 'runtime']],
    ['agent', ['slack', 'local', 'llm', 'mcp', 'startup', 'runtime']],
    ['approvals', ['slack', 'local', 'llm', 'mcp', 'startup', 'runtime']],
    ['runtime', ['slack', 'local', 'llm', 'mcp', 'startup']],
    // Only the composition root builds the parts; nothing it builds imports it.
    ['slack', ['startup', 'local']],
    ['local', ['startup']],
    ['ops', ['startup']],
    ['llm', ['startup', 'slack', 'local']],
    ['mcp', ['startup', 'slack', 'local']],
  ])('%s imports none of %j', (folder, forbidden) => {
    const offenders = sources(folder).flatMap((file) =>
      [...importedFolders(file)]
        .filter((imported) => forbidden.includes(imported))
        .map((imported) => `${relative(root, file)} -> ${imported}/`),
    );
    expect(offenders).toEqual([]);
  });
});
