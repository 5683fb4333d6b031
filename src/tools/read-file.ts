import { z } from 'zod';
import { ToolRefusedError } from '../agent/tool-refused-error.js';
import { defineTool } from './define-tool.js';
import { type OpenInWorkdirOptions, openInWorkdir } from './open-in-workdir.js';

const maxFileBytes = 64_000;

export interface ReadFileOptions {
  /** See `OpenInWorkdirOptions.afterCheck`: for tests that race the open. */
  readonly afterCheck?: OpenInWorkdirOptions['afterCheck'];
}

/**
 * Reading inside the workdir is allowed without asking; the confinement is the safety, not a human. What
 * is read is the descriptor that was verified against the checked path, never the path a second time.
 */
export function createReadFileTool(workdir: string, options: ReadFileOptions = {}) {
  return defineTool({
    name: 'read_file',
    description: 'Read a text file inside the working directory (up to 64 KB).',
    parameters: z.object({ path: z.string().min(1).describe('Path relative to the working directory') }),
    permissionTypes: [],
    permission: () => ({ type: 'allow', reason: 'reads inside the working directory' }),
    idempotent: true,
    async execute(args) {
      const opened = await openInWorkdir(workdir, args.path, {
        kind: 'file',
        afterCheck: options.afterCheck,
      });
      if (opened.type === 'refused') throw new ToolRefusedError(opened.message);
      const { handle, size } = opened;
      try {
        const buffer = Buffer.alloc(Math.min(size, maxFileBytes));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        const text = buffer.subarray(0, bytesRead).toString('utf8');
        return size > maxFileBytes ? `${text}\n[truncated: showing ${maxFileBytes} of ${size} bytes]` : text;
      } finally {
        await handle.close();
      }
    },
  });
}
