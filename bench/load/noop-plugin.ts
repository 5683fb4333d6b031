/**
 * The load benchmark's tool, loaded by the app through `HOLDFAST_PLUGINS` like any plugin: it asks for
 * approval and does nothing, so the benchmark measures holdfast and not a shell. When it runs it tells
 * the benchmark's fakes (`BENCH_LOAD_TOOL_START_URL`, on loopback), so click → tool start is timed.
 */
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';

export const benchNoop = defineTool({
  name: 'bench_noop',
  description: 'Does nothing, after asking.',
  parameters: z.object({ target: z.string() }),
  permission: (args) => ({ type: 'ask', permissionType: 'noop', summary: `noop ${args.target}` }),
  async execute(args) {
    const url = process.env.BENCH_LOAD_TOOL_START_URL;
    if (url) {
      // Timing only: a fake that is gone changes nothing about the tool.
      await fetch(url, { method: 'POST', body: JSON.stringify({ target: args.target }) }).catch(
        () => undefined,
      );
    }
    return 'ok';
  },
});
