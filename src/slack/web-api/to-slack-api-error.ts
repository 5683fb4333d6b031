import {
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
} from '@slack/web-api';
import { z } from 'zod';
import { SlackApiError } from './slack-errors.js';

/**
 * The Web API client's failures as one error. Only an answer from Slack (`ok: false`, a 429) is a refusal;
 * a call with no readable answer may have acted, and the outbox looks for its post before sending again.
 */
export function toSlackApiError(method: string, error: unknown): SlackApiError {
  if (error instanceof SlackApiError) return error;
  if (error instanceof WebAPIPlatformError)
    return new SlackApiError(method, error.data.error, { cause: error, refused: true });
  if (error instanceof WebAPIRateLimitedError) {
    return new SlackApiError(method, 'ratelimited', {
      cause: error,
      retryAfterMs: error.retryAfter * 1_000,
      refused: true,
    });
  }
  if (error instanceof WebAPIHTTPError)
    return new SlackApiError(method, `http_${error.statusCode}`, { cause: error });
  if (error instanceof WebAPIRequestError)
    return new SlackApiError(method, 'request_failed', { cause: error });
  if (error instanceof z.ZodError) return new SlackApiError(method, 'unexpected_response', { cause: error });
  return new SlackApiError(method, error instanceof Error ? error.message : String(error), { cause: error });
}
