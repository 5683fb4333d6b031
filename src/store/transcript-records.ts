/** What a transcript holds: the chat-completions messages of a conversation and how each call ended. */

/** A call the model asked for. `arguments` is the raw JSON text the model produced, unparsed. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

export type ChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string; readonly name?: string }
  | { readonly role: 'assistant'; readonly content: string | null; readonly toolCalls?: readonly ToolCall[] }
  | {
      readonly role: 'tool';
      readonly toolCallId: string;
      readonly content: string;
      /** How the call ended, for people (never sent to the model); absent on results stored before it was kept. */
      readonly outcome?: ToolOutcome;
    };

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
