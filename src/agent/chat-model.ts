/**
 * The port the agent loop talks to. Owned here, by its consumer; `src/llm` adapts OpenAI (or a script) to
 * it, so nothing in `src/agent` knows which model is behind it.
 */
export interface ChatModel {
  complete(request: ChatRequest): Promise<ModelReply>;
}

export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolSpec[];
  readonly signal?: AbortSignal;
}

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
  | { readonly role: 'tool'; readonly toolCallId: string; readonly content: string };

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
