/**
 * The load benchmark's tool, loaded by the app through `HOLDFAST_PLUGINS` like any plugin: it asks for
 * approval and does nothing, so the benchmark measures holdfast and not a shell.
 */
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';

export const benchNoop = defineTool({
  name: 'bench_noop',
  description: 'Does nothing, after asking.',
  parameters: z.object({ target: z.string() }),
  permission: (args) => ({ type: 'ask', permissionType: 'noop', summary: `noop ${args.target}` }),
  execute: () => 'ok',
});
