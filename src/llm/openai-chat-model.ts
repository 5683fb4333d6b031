import OpenAI from 'openai';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { ChatMessage, ChatModel, ChatRequest, ModelReply, ToolSpec } from '../agent/chat-model.js';
import { HoldfastError } from '../errors.js';
import { describeNetworkFailure } from '../network-failure.js';
import { describeModelEndpoint } from './model-endpoint.js';
import {
  ModelAuthError,
  ModelBadRequestError,
  ModelNotFoundError,
  ModelRateLimitedError,
  ModelRequestAbortedError,
  ModelResponseInvalidError,
  ModelTimeoutError,
  ModelUnavailableError,
  ModelUnreachableError,
  type ProviderDetails,
} from './model-errors.js';

type SdkMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type SdkTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;

export interface OpenAIChatModelOptions {
  /** Built in main.ts with `maxRetries` and `timeout`: the SDK owns the bounded retries. */
  readonly client: OpenAI;
  readonly model: string;
  readonly logger: Logger;
  /** Reads the clock only to turn an HTTP-date `retry-after` into a wait. */
  readonly now?: () => number;
}

/** The chat completions adapter behind the `ChatModel` port: non-streaming, function tools only. */
export function createOpenAIChatModel({
  client,
  model,
  logger,
  now = Date.now,
}: OpenAIChatModelOptions): ChatModel {
  // Named in failures people read, so without anything the base URL might carry besides the address.
  const endpoint = describeModelEndpoint(client.baseURL);
  return {
    async complete(request: ChatRequest): Promise<ModelReply> {
      logger.debug(
        { model, messages: request.messages.length, tools: request.tools.length },
        'chat completion requested',
      );
      let body: unknown;
      try {
        body = await client.chat.completions.create(
          {
            model,
            messages: request.messages.map(toSdkMessage),
            // The API rejects an empty tools array, so a tool-less request sends none.
            ...(request.tools.length > 0 ? { tools: request.tools.map(toSdkTool) } : {}),
          },
          // The SDK adds an abort listener to the signal it is given and never removes it: a signal of its
          // own per request keeps the turn's signal (shared by every call of a long turn) clean.
          { signal: request.signal ? AbortSignal.any([request.signal]) : undefined },
        );
      } catch (error) {
        throw toModelError(error, { signal: request.signal, now, model, endpoint });
      }
      const reply = parseCompletion(body);
      logger.debug(
        { model, finishReason: reply.finishReason, toolCalls: reply.toolCalls.length, usage: reply.usage },
        'chat completion received',
      );
      if (reply.finishReason === 'length' || reply.finishReason === 'content_filter') {
        logger.warn(
          { model, finishReason: reply.finishReason },
          'the model stopped before finishing its reply',
        );
      }
      return { content: reply.content, toolCalls: reply.toolCalls, usage: reply.usage };
    },
  };
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

interface FailedRequest {
  readonly signal: AbortSignal | undefined;
  readonly now: () => number;
  readonly model: string;
  readonly endpoint: string;
}

/** Maps what the SDK throws (after its own retries) to holdfast's model errors; the order matters. */
function toModelError(error: unknown, { signal, now, model, endpoint }: FailedRequest): unknown {
  if (error instanceof HoldfastError) return error;
  if (signal?.aborted || error instanceof OpenAI.APIUserAbortError) {
    return new ModelRequestAbortedError({ cause: error });
  }
  // Subclass before base class: a timeout is also a connection error.
  if (error instanceof OpenAI.APIConnectionTimeoutError) return new ModelTimeoutError({}, { cause: error });
  if (error instanceof OpenAI.APIConnectionError) {
    const reason = describeNetworkFailure(error.cause) ?? 'the connection failed';
    return new ModelUnreachableError(endpoint, reason, { cause: error });
  }
  if (error instanceof OpenAI.APIError) {
    const details = providerDetails(error);
    if (error instanceof OpenAI.RateLimitError) {
      return new ModelRateLimitedError(retryAfterMs(error.headers, now), details, { cause: error });
    }
    if (error instanceof OpenAI.AuthenticationError || error instanceof OpenAI.PermissionDeniedError) {
      return new ModelAuthError(details);
    }
    if (error.status === 408) return new ModelTimeoutError(details, { cause: error });
    if (error instanceof OpenAI.InternalServerError || error.status === 409) {
      return new ModelUnavailableError(undefined, details, { cause: error });
    }
    // An unknown model, or a base URL that serves no models at all: the configuration is wrong.
    if (error instanceof OpenAI.NotFoundError) {
      return new ModelNotFoundError(model, endpoint, details, { cause: error });
    }
    // 400, 422 and any other 4xx: the request itself is wrong.
    return new ModelBadRequestError(details, { cause: error });
  }
  // The SDK parses a JSON content type itself, so a truncated or garbled body surfaces as a SyntaxError.
  if (error instanceof SyntaxError) {
    return new ModelResponseInvalidError(['(body): not valid JSON'], {}, { cause: error });
  }
  return error;
}

function providerDetails(error: InstanceType<typeof OpenAI.APIError>): ProviderDetails {
  return {
    status: error.status,
    requestId: error.requestID ?? undefined,
    providerCode: typeof error.code === 'string' ? error.code : undefined,
  };
}

/** `retry-after-ms` (OpenAI's own) wins over `retry-after`, which is seconds or an HTTP date. */
function retryAfterMs(headers: Headers | undefined, now: () => number): number | undefined {
  const millis = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(millis) && millis >= 0) return millis;
  const retryAfter = headers?.get('retry-after');
  if (!retryAfter) return undefined;
  const seconds = Number.parseFloat(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}
