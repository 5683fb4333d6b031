import { KeyValueState } from '../../src/agent/kv.js';
import type { ToolContext } from '../../src/agent/tool.js';
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
    ...overrides,
  };
}
