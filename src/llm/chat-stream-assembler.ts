import { z } from 'zod';
import type { ModelReply, ModelStreamEvent, ToolCall } from '../agent/chat-model.js';
import { ModelResponseInvalidError } from './model-errors.js';

// Only what holdfast reads is checked; OpenAI-compatible servers add or omit the rest freely.
const chunkSchema = z.object({
  choices: z.array(
    z.object({
      index: z.number().int().nonnegative().optional(),
      finish_reason: z.string().nullish(),
      delta: z
        .object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                index: z.number().int().nonnegative(),
                id: z.string().min(1).nullish(),
                function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
              }),
            )
            .nullish(),
        })
        .nullish(),
    }),
  ),
  // Usage is bookkeeping: a server that reports it oddly must not cost the user their answer.
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative(),
      completion_tokens: z.number().int().nonnegative(),
    })
    .nullish()
    .catch(undefined),
});

interface PartialCall {
  id: string | undefined;
  name: string;
  arguments: string;
  announced: boolean;
}

export interface AssembledReply extends ModelReply {
  readonly finishReason: string | undefined;
}

/**
 * Builds one reply from the chunks of a streamed chat completion. Parallel tool calls arrive interleaved,
 * each delta naming its call by `index`; the id and name come once, the arguments in pieces. Usage comes in
 * a final chunk with no choices. Only the first choice is read: holdfast never asks for more than one.
 */
export class ChatStreamAssembler {
  #content = '';
  #refusal = '';
  #hasContent = false;
  readonly #calls = new Map<number, PartialCall>();
  #usage: ModelReply['usage'];
  #finishReason: string | undefined;

  /** Whether the model said it was done; a stream that ends without it was cut off. */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  /** Takes one chunk and returns what people watching may be shown of it. */
  add(raw: unknown): ModelStreamEvent[] {
    const parsed = chunkSchema.safeParse(raw);
    if (!parsed.success) {
      throw new ModelResponseInvalidError(
        parsed.error.issues.map((issue) => `${issue.path.join('.') || '(chunk)'}: ${issue.message}`),
      );
    }
    const { choices, usage } = parsed.data;
    if (usage) this.#usage = { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
    const events: ModelStreamEvent[] = [];
    const choice = choices.find((candidate) => (candidate.index ?? 0) === 0);
    if (!choice) return events;
    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (delta?.content) {
      this.#content += delta.content;
      this.#hasContent = true;
      events.push({ type: 'text', delta: delta.content });
    }
    // A refusal is the model's answer to the user, so it is shown rather than treated as an empty reply.
    if (delta?.refusal) {
      this.#refusal += delta.refusal;
      events.push({ type: 'text', delta: delta.refusal });
    }
    for (const part of delta?.tool_calls ?? []) {
      const call = this.#calls.get(part.index) ?? {
        id: undefined,
        name: '',
        arguments: '',
        announced: false,
      };
      this.#calls.set(part.index, call);
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
      if (!call.announced && call.id && call.name) {
        call.announced = true;
        events.push({ type: 'tool-call', index: part.index, id: call.id, name: call.name });
      }
    }
    return events;
  }

  reply(): AssembledReply {
    const toolCalls: ToolCall[] = [];
    for (const [index, call] of [...this.#calls.entries()].sort(([a], [b]) => a - b)) {
      if (!call.id || !call.name) {
        throw new ModelResponseInvalidError([`tool_calls.${index}: a call without an id or a name`]);
      }
      toolCalls.push({ id: call.id, name: call.name, arguments: call.arguments });
    }
    const content = this.#hasContent ? this.#content : this.#refusal || null;
    return { content, toolCalls, usage: this.#usage, finishReason: this.#finishReason };
  }
}
