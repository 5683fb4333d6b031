import { z } from 'zod';
import type { Tool } from '../agent/tool.js';
import { defineTool } from './define-tool.js';

const instructions = [
  'You are a focused helper agent working for an operations assistant.',
  'Do the one task you are given with the tools you have, then answer with the result in a few lines.',
  'Some tool calls wait for a human; if one is denied or times out, say so and stop.',
].join('\n');

/**
 * Hands a sub-task to a nested agent with its own transcript and kv. Its approvals suspend the whole turn;
 * on resume it continues from its own transcript, which is why re-running it after a crash is safe.
 */
export function createDelegateTool(tools: () => readonly Tool[]) {
  return defineTool({
    name: 'delegate',
    description:
      'Give a self-contained sub-task to a helper agent that has the same tools; returns its final answer.',
    parameters: z.object({
      task: z.string().min(1).max(8_000).describe('What the helper must do, with all the context it needs'),
      agent: z
        .string()
        .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'a short lowercase name')
        .optional()
        .describe('A short name for the helper, e.g. "db-checker"; it names its state and logs'),
    }),
    permissionTypes: [],
    permission: () => ({ type: 'allow', reason: 'the nested agent asks for its own calls' }),
    idempotent: true,
    execute: (args, ctx) =>
      ctx.runAgent({ name: args.agent ?? 'helper', instructions, input: args.task, tools: tools() }),
  });
}
