import type { ToolOutcome } from './tool-outcome.js';

/**
 * What a running turn reports for the people watching it: the answer as it is written and each tool call
 * as it moves. Best effort and never persisted; what people must see once goes through the outbox.
 */
export type TurnProgress =
  | { readonly type: 'text'; readonly delta: string }
  /** The model's stream broke off and is being asked again: the text reported since its last reply is void. */
  | { readonly type: 'text-reset' }
  /** The model named a call; it has not been checked or run yet. */
  | { readonly type: 'tool-planned'; readonly call: ProgressCall }
  | { readonly type: 'tool-started'; readonly call: ProgressCall }
  | { readonly type: 'tool-finished'; readonly call: ProgressCall; readonly outcome: ToolOutcome }
  | { readonly type: 'awaiting-approval'; readonly calls: readonly ProgressCall[] }
  /** The model gave its answer: it is committed next, and only then posted. */
  | { readonly type: 'answered' };

export interface ProgressCall {
  readonly id: string;
  readonly name: string;
  /** The call's arguments as the model wrote them (JSON); unknown while the model is still writing them. */
  readonly arguments?: string;
}

export type ReportProgress = (event: TurnProgress) => void;
