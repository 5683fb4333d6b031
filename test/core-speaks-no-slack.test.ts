import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', 'src');
/** The folders that decide and keep: people are ids in them, and only the chat adapters write mentions. */
const core = ['agent', 'approvals', 'runtime', 'store', 'outbox', 'tools', 'audit'];

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.includes('.test.'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('the core speaks no Slack', () => {
  it('writes no Slack mention, and reads none back, outside the chat adapters', () => {
    const offenders = core
      .flatMap((folder) => sources(join(root, folder)))
      .filter((file) => /<@|<#|<!subteam/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
  });
});
