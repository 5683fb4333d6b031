import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { PathOutsideWorkdirError, resolveInWorkdir } from './workdir-path.js';

const maxFileBytes = 64_000;
const maxEntries = 500;

/** Reading inside the workdir is allowed without asking; the confinement is the safety, not a human. */
export function createReadFileTool(workdir: string) {
  return defineTool({
    name: 'read_file',
    description: 'Read a text file inside the working directory (up to 64 KB).',
    parameters: z.object({ path: z.string().min(1).describe('Path relative to the working directory') }),
    permission: () => ({ type: 'allow', reason: 'reads inside the working directory' }),
    idempotent: true,
    async execute(args) {
      const file = await confined(workdir, args.path);
      if (typeof file !== 'string') return file.message;
      const stat = await fs.stat(file);
      if (!stat.isFile()) return `${args.path} is not a file.`;
      const handle = await fs.open(file, 'r');
      try {
        const buffer = Buffer.alloc(Math.min(stat.size, maxFileBytes));
        await handle.read(buffer, 0, buffer.length, 0);
        const text = buffer.toString('utf8');
        return stat.size > maxFileBytes
          ? `${text}\n[truncated: showing ${maxFileBytes} of ${stat.size} bytes]`
          : text;
      } finally {
        await handle.close();
      }
    },
  });
}

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
      const dir = await confined(workdir, args.path);
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

async function confined(workdir: string, requested: string): Promise<string | PathOutsideWorkdirError> {
  try {
    return await resolveInWorkdir(workdir, requested);
  } catch (error) {
    if (error instanceof PathOutsideWorkdirError) return error;
    throw error;
  }
}
