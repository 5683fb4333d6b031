import { KeyValueState } from '../../src/agent/kv.js';
import type { ToolContext } from '../../src/agent/tool.js';
import { outputText, type ToolOutput } from '../../src/agent/tool-outcome.js';
import { ToolRefusedError } from '../../src/agent/tool-refused-error.js';
import { createTestLogger } from './test-logger.js';

/** The context a tool gets from the runtime, for tests that call a tool directly. */
export function toolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    transcriptId: 'T0HOLDFAST:C0OPS:1700000000.000100',
    turnId: 'turn_1',
    toolCallId: 'call_1',
    requestedBy: 'UREQUESTER',
    kv: new KeyValueState(),
    signal: new AbortController().signal,
    logger: createTestLogger().logger,
    runAgent: async () => {
      throw new Error('this test does not run nested agents');
    },
    answerTo: async () => undefined,
    ...overrides,
  };
}

/**
 * What the runtime records for a call: the tool's output (the text of a failed run too), or the words
 * of its refusal (a ToolRefusedError, which the runtime also audits). For tests that call a tool directly.
 */
export async function resultOf<Args>(
  tool: { execute(args: Args, ctx: ToolContext): Promise<ToolOutput> },
  args: Args,
  ctx: ToolContext = toolContext(),
): Promise<string> {
  try {
    return outputText(await tool.execute(args, ctx));
  } catch (error) {
    if (error instanceof ToolRefusedError) return error.message;
    throw error;
  }
}
