import OpenAI from 'openai';
import { HoldfastError } from '../errors.js';
import { describeNetworkFailure } from '../network-failure.js';
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

export interface FailedRequest {
  readonly signal: AbortSignal | undefined;
  readonly now: () => number;
  readonly model: string;
  readonly endpoint: string;
}

/** Maps what the SDK throws (after its own retries) to holdfast's model errors; the order matters. */
export function toModelError(error: unknown, { signal, now, model, endpoint }: FailedRequest): unknown {
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
