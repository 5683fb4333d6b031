/**
 * How one tool call ended. Kept with the call's result, so whatever shows the call later (its task, the
 * turn's reaction, the log, the answer) reads what happened from this value and never from the result's
 * words, which are written for the model.
 */
export type ToolOutcome =
  | { readonly type: 'succeeded' }
  /** It ran and did not do what was asked: a non-zero exit, a network error, a thrown error. */
  | { readonly type: 'failed'; readonly exitCode?: number; readonly error?: string }
  /** Someone pressed Stop while it ran; its process was killed. */
  | { readonly type: 'stopped'; readonly by?: string }
  /** It started and its result never came (a crash, a shutdown): whatever it did is unknown. */
  | { readonly type: 'interrupted' }
  /** An approver denied it (`by` is their user id). */
  | { readonly type: 'denied'; readonly by?: string }
  /** Its approval request expired with nobody deciding. */
  | { readonly type: 'expired' }
  /** It was not run: a deny rule, the tool itself, or holdfast (a spent budget, an invalid call) said no. */
  | { readonly type: 'refused'; readonly by: RefusedBy };

export type RefusedBy =
  | 'policy'
  | 'tool'
  /** A spent budget, arguments that differ from the approved ones, a turn that failed before it ran. */
  | 'holdfast'
  /** No such tool, or arguments that do not parse: the model's slip, which it usually corrects. */
  | 'invalid-call';

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
