import type { ToolCall } from '../transcript-records.js';

/**
 * The call a resumed turn runs first: the first call of the transcript's newest assistant message that
 * has no result yet (the tool runtime runs them in order). Undefined when every call has its result.
 */
export function nextCallToRun(
  calls: readonly ToolCall[],
  answered: ReadonlySet<string>,
): ToolCall | undefined {
  return calls.find((call) => !answered.has(call.id));
}
