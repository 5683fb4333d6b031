import type { ToolOutcome } from '../store/transcript-records.js';

export type { RefusedBy, ToolOutcome } from '../store/transcript-records.js';

/** What a tool's `execute` returns: the text the model reads, or that text with how the run failed. */
export type ToolOutput = string | FailedRun;

export interface FailedRun {
  readonly type: 'failed';
  /** What the model reads, as for a run that succeeded: the output and a line saying how it failed. */
  readonly text: string;
  readonly exitCode?: number;
  readonly error?: string;
}

/** A run that went wrong, said structurally so nobody has to read it out of the text. */
export function failedRun(text: string, failure: { exitCode?: number; error?: string }): FailedRun {
  return { type: 'failed', text, ...failure };
}

/** The model's text of a tool's output. */
export function outputText(output: ToolOutput): string {
  return typeof output === 'string' ? output : output.text;
}

/** The outcome of a run that returned (rather than threw). */
export function outcomeOfOutput(output: ToolOutput): ToolOutcome {
  if (typeof output === 'string') return { type: 'succeeded' };
  const { exitCode, error } = output;
  return {
    type: 'failed',
    ...(exitCode === undefined ? {} : { exitCode }),
    ...(error === undefined ? {} : { error }),
  };
}
