import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { confinedPath } from './workdir-path.js';

const maxEntries = 500;

export function createListFilesTool(workdir: string) {
  return defineTool({
    name: 'list_files',
    description: 'List a directory inside the working directory.',
    parameters: z.object({
      path: z.string().default('.').describe('Directory relative to the working directory'),
    }),
    permission: () => ({ type: 'allow', reason: 'lists inside the working directory' }),
    idempotent: true,
    async execute(args) {
      const dir = await confinedPath(workdir, args.path);
      if (typeof dir !== 'string') return dir.message;
      const entries = await fs.readdir(dir, { withFileTypes: true });
      if (entries.length === 0) return `${args.path} is empty.`;
      const lines = entries
        .sort((a, b) => a.name.localeCompare(b.name))
        .slice(0, maxEntries)
        .map((entry) =>
          entry.isDirectory() ? `${entry.name}/` : entry.isSymbolicLink() ? `${entry.name}@` : entry.name,
        );
      if (entries.length > maxEntries) lines.push(`[${entries.length - maxEntries} more entries]`);
      return `${path.join(args.path)}:\n${lines.join('\n')}`;
    },
  });
}
