import type { ChatModel, ChatRequest, ModelReply, ModelStreamEvent, ToolCall } from '../agent/chat-model.js';
import { HoldfastError } from '../errors.js';
import { streamReply } from './stream-reply.js';

/** One scripted step: a fixed reply, an error to throw, or a function of the request. */
export type ScriptedStep = ModelReply | Error | ((request: ChatRequest) => ModelReply | Promise<ModelReply>);

export class ScriptExhaustedError extends HoldfastError {
  readonly code = 'model_script_exhausted';
  constructor(calls: number) {
    super(`The scripted model was called ${calls} times but has only ${calls - 1} replies`);
  }
}

/**
 * A model for tests and benchmarks: plays its replies back in order and records every request, so a test
 * can assert how many times the model was asked and what it saw (a resume that re-asks the model fails).
 */
export class ScriptedChatModel implements ChatModel {
  readonly calls: ChatRequest[] = [];
  readonly #steps: ScriptedStep[];

  constructor(steps: readonly ScriptedStep[] = []) {
    this.#steps = [...steps];
  }

  /** Queues more replies, for tests that script a second turn after the first. */
  enqueue(...steps: ScriptedStep[]): this {
    this.#steps.push(...steps);
    return this;
  }

  get remaining(): number {
    return this.#steps.length;
  }

  async complete(request: ChatRequest): Promise<ModelReply> {
    this.calls.push({ ...request, messages: structuredClone([...request.messages]) });
    const step = this.#steps.shift();
    if (step === undefined) throw new ScriptExhaustedError(this.calls.length);
    if (step instanceof Error) throw step;
    return typeof step === 'function' ? step(request) : step;
  }

  /** Plays the next step back as a stream: its text word by word, then its calls. */
  async stream(request: ChatRequest, onEvent: (event: ModelStreamEvent) => void): Promise<ModelReply> {
    return streamReply(await this.complete(request), onEvent);
  }
}

/** Builders that keep scripts readable: `reply.toolCalls(['run_shell', { command: 'ls' }])`. */
export const reply = {
  text(content: string): ModelReply {
    return { content, toolCalls: [] };
  },
  toolCalls(...calls: Array<[name: string, args: unknown, id?: string] | ToolCall>): ModelReply {
    return {
      content: null,
      toolCalls: calls.map((call, index) =>
        Array.isArray(call)
          ? {
              id: call[2] ?? `call_${index + 1}`,
              name: call[0],
              arguments: typeof call[1] === 'string' ? call[1] : JSON.stringify(call[1]),
            }
          : call,
      ),
    };
  },
};
