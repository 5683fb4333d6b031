import { HoldfastError } from '../errors.js';

/** What the provider told us about a failed request; never the request itself, which holds the key. */
export interface ProviderDetails {
  readonly status?: number;
  readonly requestId?: string;
  /** The provider's own error code, such as `insufficient_quota` or `model_not_found`. */
  readonly providerCode?: string;
}

/**
 * A model request failed. `retryable` says whether sending the same request again later may succeed; the
 * SDK has already spent its own bounded retries by the time one of these is thrown.
 */
export abstract class ModelError extends HoldfastError {
  abstract readonly retryable: boolean;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly providerCode: string | undefined;

  constructor(message: string, details: ProviderDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.status = details.status;
    this.requestId = details.requestId;
    this.providerCode = details.providerCode;
  }
}

export class ModelRateLimitedError extends ModelError {
  readonly code = 'model_rate_limited';
  readonly retryable = true;
  constructor(
    /** How long the provider asked us to wait, when it said so (`retry-after-ms` or `retry-after`). */
    readonly retryAfterMs: number | undefined,
    details: ProviderDetails = {},
    options?: { cause?: unknown },
  ) {
    super('The model provider is rate limiting holdfast', details, options);
  }
}

/** 5xx answers, lock conflicts and connections that failed before an answer came back. */
export class ModelUnavailableError extends ModelError {
  readonly code = 'model_unavailable';
  readonly retryable = true;
  constructor(
    message = 'The model provider is unavailable',
    details: ProviderDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, details, options);
  }
}

/**
 * No connection to the model endpoint at all (refused, unknown host, TLS): the message names the
 * endpoint and why, since what fixes it is the address or the network, not the request.
 */
export class ModelUnreachableError extends ModelError {
  readonly code = 'model_unreachable';
  readonly retryable = true;
  constructor(
    /** Where the request went (`describeModelEndpoint`), never with credentials. */
    readonly endpoint: string,
    /** Why, for people: "connection refused: nothing is listening there (ECONNREFUSED)". */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Could not reach the model endpoint ${endpoint}: ${reason}`, {}, options);
  }
}

export class ModelTimeoutError extends ModelError {
  readonly code = 'model_timeout';
  readonly retryable = true;
  constructor(details: ProviderDetails = {}, options?: { cause?: unknown }) {
    super('The model did not answer in time', details, options);
  }
}

export class ModelAuthError extends ModelError {
  readonly code = 'model_auth_failed';
  readonly retryable = false;
  constructor(details: ProviderDetails = {}) {
    // No cause on purpose: providers echo (part of) the rejected key in their message, and causes are logged.
    super('The model provider rejected the API key or its permissions', details);
  }
}

/** The provider refused the request as sent (400, 422): retrying cannot help. */
export class ModelBadRequestError extends ModelError {
  readonly code = 'model_bad_request';
  readonly retryable = false;
  constructor(details: ProviderDetails = {}, options?: { cause?: unknown }) {
    super('The model provider refused the request', details, options);
  }
}

/**
 * A 404 for the configured model: the endpoint does not serve it under that name (or the base URL points
 * somewhere that serves no models at all). Only configuration fixes it.
 */
export class ModelNotFoundError extends ModelError {
  readonly code = 'model_not_found';
  readonly retryable = false;
  constructor(
    readonly model: string,
    /** Where it was looked for (`describeModelEndpoint`), never with credentials. */
    readonly endpoint: string,
    details: ProviderDetails = {},
    options?: { cause?: unknown },
  ) {
    super(`The configured model \`${model}\` does not exist at ${endpoint}`, details, options);
  }
}

/** A 2xx answer that is not a chat completion holdfast can use (a proxy's HTML page, no choices, …). */
export class ModelResponseInvalidError extends ModelError {
  readonly code = 'model_response_invalid';
  readonly retryable = false;
  constructor(
    readonly issues: readonly string[],
    details: ProviderDetails = {},
    options?: { cause?: unknown },
  ) {
    super('The model provider sent a reply holdfast could not read', details, options);
  }
}

/** The caller's signal stopped the request (shutdown); the turn is re-run from its transcript later. */
export class ModelRequestAbortedError extends ModelError {
  readonly code = 'model_aborted';
  readonly retryable = false;
  constructor(options?: { cause?: unknown }) {
    super('The model request was stopped before it finished', {}, options);
  }
}
