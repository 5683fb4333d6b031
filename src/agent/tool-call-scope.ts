import { AsyncLocalStorage } from 'node:async_hooks';

export interface ToolCallScope {
  readonly conversationId: string;
  readonly channelId: string;
  readonly transcriptId: string;
  readonly turnId: string;
  readonly toolCallId: string;
  readonly requestedBy: string;
}

/**
 * The call being decided travels with the async context, not as a parameter threaded through tools, so
 * the permission manager keys its row by the right (transcript, tool_call_id) however many awaits and
 * nested agents lie in between.
 */
export class ToolCallContext {
  readonly #storage = new AsyncLocalStorage<ToolCallScope>();

  run<Result>(scope: ToolCallScope, work: () => Promise<Result>): Promise<Result> {
    return this.#storage.run(scope, work);
  }

  current(): ToolCallScope | undefined {
    return this.#storage.getStore();
  }
}
