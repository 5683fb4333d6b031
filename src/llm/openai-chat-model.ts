import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import type { Logger } from 'pino';
import { z } from 'zod';
import type {
  ChatMessage,
  ChatModel,
  ChatRequest,
  ModelReply,
  ModelStreamEvent,
  ToolSpec,
} from '../agent/chat-model.js';
import { type AssembledReply, ChatStreamAssembler } from './chat-stream-assembler.js';
import { describeModelEndpoint } from './model-endpoint.js';
import {
  ModelError,
  ModelRequestAbortedError,
  ModelResponseInvalidError,
  ModelUnavailableError,
} from './model-errors.js';
import { toModelError } from './openai-model-error.js';

type SdkMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type SdkTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;

export interface OpenAIChatModelOptions {
  /** Built at start-up (`createOpenAIClient`) with `maxRetries` and `timeout`: the SDK owns the bounded retries. */
  readonly client: OpenAI;
  readonly model: string;
  readonly logger: Logger;
  /** Reads the clock only to turn an HTTP-date `retry-after` into a wait. */
  readonly now?: () => number;
  /**
   * How long to wait before asking again after a stream broke off mid-way (the SDK retries only failures
   * before the answer starts). `attempt` counts from 0.
   */
  readonly streamRetryDelayMs?: (attempt: number) => number;
}

const defaultStreamRetryDelayMs = (attempt: number) => Math.min(8_000, 500 * 2 ** attempt);

/** The chat completions adapter behind the `ChatModel` port: function tools only, streamed or not. */
export function createOpenAIChatModel({
  client,
  model,
  logger,
  now = Date.now,
  streamRetryDelayMs = defaultStreamRetryDelayMs,
}: OpenAIChatModelOptions): ChatModel {
  // Named in failures people read, so without anything the base URL might carry besides the address.
  const endpoint = describeModelEndpoint(client.baseURL);
  const failed = (error: unknown, signal: AbortSignal | undefined) =>
    toModelError(error, { signal, now, model, endpoint });
  const params = (request: ChatRequest) => ({
    model,
    messages: request.messages.map(toSdkMessage),
    // The API rejects an empty tools array, so a tool-less request sends none.
    ...(request.tools.length > 0 ? { tools: request.tools.map(toSdkTool) } : {}),
  });
  // The SDK adds an abort listener to the signal it is given and never removes it: a signal of its own per
  // request keeps the turn's signal (shared by every call of a long turn) clean.
  const sdkOptions = (request: ChatRequest) => ({
    signal: request.signal ? AbortSignal.any([request.signal]) : undefined,
  });
  const received = (reply: AssembledReply, streamed: boolean): ModelReply => {
    logger.debug(
      {
        model,
        streamed,
        finishReason: reply.finishReason,
        toolCalls: reply.toolCalls.length,
        usage: reply.usage,
      },
      'chat completion received',
    );
    if (reply.finishReason === 'length' || reply.finishReason === 'content_filter') {
      logger.warn(
        { model, finishReason: reply.finishReason },
        'the model stopped before finishing its reply',
      );
    }
    return { content: reply.content, toolCalls: reply.toolCalls, usage: reply.usage };
  };

  /** One streamed attempt; a failure after the answer began is thrown for `stream` to retry or not. */
  const streamOnce = async (
    request: ChatRequest,
    onEvent: (event: ModelStreamEvent) => void,
  ): Promise<AssembledReply> => {
    let chunks: AsyncIterable<unknown>;
    try {
      chunks = await client.chat.completions.create(
        { ...params(request), stream: true, stream_options: { include_usage: true } },
        sdkOptions(request),
      );
    } catch (error) {
      throw new BeforeStream(failed(error, request.signal));
    }
    const assembler = new ChatStreamAssembler();
    try {
      for await (const chunk of chunks) {
        for (const event of assembler.add(chunk)) onEvent(event);
      }
    } catch (error) {
      throw midStreamError(failed(error, request.signal), error);
    }
    // The SDK ends the iteration quietly when the request is aborted.
    if (request.signal?.aborted) throw new ModelRequestAbortedError();
    if (!assembler.finished) throw new ModelUnavailableError('The model stream ended before the reply did');
    return assembler.reply();
  };

  return {
    async complete(request: ChatRequest): Promise<ModelReply> {
      logger.debug(
        { model, messages: request.messages.length, tools: request.tools.length },
        'chat completion requested',
      );
      let body: unknown;
      try {
        body = await client.chat.completions.create(params(request), sdkOptions(request));
      } catch (error) {
        throw failed(error, request.signal);
      }
      return received(parseCompletion(body), false);
    },

    async stream(request, onEvent): Promise<ModelReply> {
      logger.debug(
        { model, messages: request.messages.length, tools: request.tools.length },
        'chat completion stream requested',
      );
      for (let attempt = 0; ; attempt += 1) {
        try {
          return received(await streamOnce(request, onEvent), true);
        } catch (error) {
          // Failures before the answer began were already retried by the SDK; they are final here.
          if (error instanceof BeforeStream) throw error.error;
          if (!isRetryableMidStream(error) || attempt >= client.maxRetries) throw error;
          logger.info({ model, attempt, err: error }, 'the model stream broke off; asking again');
          onEvent({ type: 'restart' });
          try {
            await sleep(streamRetryDelayMs(attempt), undefined, { signal: request.signal });
          } catch (abort) {
            throw new ModelRequestAbortedError({ cause: abort });
          }
        }
      }
    },
  };
}

/** Carries a failure that happened before any chunk arrived, past the mid-stream retry. */
class BeforeStream {
  constructor(readonly error: unknown) {}
}

/**
 * A failure once the answer began: the connection cut mid-body (fetch's plain "terminated") or an error
 * event in the stream (an API error with no status) means the provider gave up on this reply, not that
 * the request was wrong.
 */
function midStreamError(mapped: unknown, original: unknown): unknown {
  const brokeOff = 'The model stream broke off before the reply was complete';
  if (original instanceof OpenAI.APIError && original.status === undefined) {
    const providerCode = typeof original.code === 'string' ? original.code : undefined;
    return new ModelUnavailableError(brokeOff, { providerCode }, { cause: original });
  }
  if (mapped instanceof ModelError) return mapped;
  return new ModelUnavailableError(brokeOff, {}, { cause: original });
}

function isRetryableMidStream(error: unknown): boolean {
  return error instanceof ModelError && error.retryable && !(error instanceof ModelRequestAbortedError);
}

function toSdkMessage(message: ChatMessage): SdkMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return message.name === undefined
        ? { role: 'user', content: message.content }
        : { role: 'user', content: message.content, name: message.name };
    case 'assistant':
      // The API rejects an empty tool_calls array: a plain answer carries no key at all.
      return message.toolCalls && message.toolCalls.length > 0
        ? {
            role: 'assistant',
            content: message.content,
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            })),
          }
        : { role: 'assistant', content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function toSdkTool(tool: ToolSpec): SdkTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

// Only what holdfast reads is checked; OpenAI-compatible servers add or omit the rest freely.
const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullish(),
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string().min(1),
                // Some compatible servers omit `type`; a `custom` tool call has no `function` and fails below.
                type: z.literal('function').optional(),
                function: z.object({ name: z.string().min(1), arguments: z.string() }),
              }),
            )
            .nullish(),
        }),
      }),
    )
    .min(1),
  // Usage is bookkeeping: a server that reports it oddly must not cost the user their answer.
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative(),
      completion_tokens: z.number().int().nonnegative(),
    })
    .nullish()
    .catch(undefined),
});

interface ParsedCompletion extends ModelReply {
  readonly finishReason: string | undefined;
}

function parseCompletion(body: unknown): ParsedCompletion {
  const parsed = completionSchema.safeParse(body);
  if (!parsed.success) {
    throw new ModelResponseInvalidError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`),
    );
  }
  const choice = parsed.data.choices[0]!;
  const usage = parsed.data.usage;
  return {
    // A refusal is the model's answer to the user, so it is shown rather than treated as an empty reply.
    content: choice.message.content ?? choice.message.refusal ?? null,
    toolCalls: (choice.message.tool_calls ?? []).map((call) => ({
      id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    })),
    usage: usage
      ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }
      : undefined,
    finishReason: choice.finish_reason ?? undefined,
  };
}
