import fs from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { confinedPath } from './workdir-path.js';

const maxFileBytes = 64_000;

/** Reading inside the workdir is allowed without asking; the confinement is the safety, not a human. */
export function createReadFileTool(workdir: string) {
  return defineTool({
    name: 'read_file',
    description: 'Read a text file inside the working directory (up to 64 KB).',
    parameters: z.object({ path: z.string().min(1).describe('Path relative to the working directory') }),
    permission: () => ({ type: 'allow', reason: 'reads inside the working directory' }),
    idempotent: true,
    async execute(args) {
      const file = await confinedPath(workdir, args.path);
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
