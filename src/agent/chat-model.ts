import type { ChatMessage, ToolCall } from '../store/transcript-records.js';

export type { ChatMessage, ToolCall } from '../store/transcript-records.js';

/**
 * The port the agent loop talks to. Owned here, by its consumer; `src/llm` adapts OpenAI (or a script) to
 * it, so nothing in `src/agent` knows which model is behind it.
 */
export interface ChatModel {
  complete(request: ChatRequest): Promise<ModelReply>;
  /**
   * The same reply as `complete`, with what the model produces reported as it comes (for people watching
   * the turn). The reply is still returned whole: nothing runs on a half-received message (invariant 1).
   * Optional: a model without it is asked with `complete` and the turn simply shows no partial text.
   */
  stream?(request: ChatRequest, onEvent: (event: ModelStreamEvent) => void): Promise<ModelReply>;
}

/** What a streaming model reports while its reply is being produced. */
export type ModelStreamEvent =
  | { readonly type: 'text'; readonly delta: string }
  /** The model began a tool call; its arguments arrive later and are only in the final reply. */
  | { readonly type: 'tool-call'; readonly index: number; readonly id: string; readonly name: string }
  /** The stream broke off and the request is being sent again: everything reported so far is void. */
  | { readonly type: 'restart' };

export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolSpec[];
  readonly signal?: AbortSignal;
}

export interface ModelReply {
  readonly content: string | null;
  readonly toolCalls: readonly ToolCall[];
  readonly usage?: { readonly promptTokens: number; readonly completionTokens: number };
}

/** What the model is told about a tool: a name, a description and a JSON schema for its arguments. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
}
