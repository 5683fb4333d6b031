import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ToolRefusedError } from '../agent/tool-refused-error.js';
import { defineTool } from './define-tool.js';
import { descriptorPath, type OpenInWorkdirOptions, openInWorkdir } from './open-in-workdir.js';

const maxEntries = 500;

export interface ListFilesOptions {
  /** See `OpenInWorkdirOptions.afterCheck`: for tests that race the open. */
  readonly afterCheck?: OpenInWorkdirOptions['afterCheck'];
}

export function createListFilesTool(workdir: string, options: ListFilesOptions = {}) {
  return defineTool({
    name: 'list_files',
    description: 'List a directory inside the working directory.',
    parameters: z.object({
      path: z.string().default('.').describe('Directory relative to the working directory'),
    }),
    permissionTypes: [],
    permission: () => ({ type: 'allow', reason: 'lists inside the working directory' }),
    idempotent: true,
    async execute(args) {
      const opened = await openInWorkdir(workdir, args.path, {
        kind: 'directory',
        afterCheck: options.afterCheck,
      });
      if (opened.type === 'refused') throw new ToolRefusedError(opened.message);
      let entries: Dirent[];
      try {
        // Through the verified descriptor where the kernel offers a path to it; otherwise the checked path.
        const through = (await descriptorPath(opened.handle.fd))
          ? `/proc/self/fd/${opened.handle.fd}`
          : opened.path;
        entries = await fs.readdir(through, { withFileTypes: true });
      } finally {
        await opened.handle.close();
      }
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
