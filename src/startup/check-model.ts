import OpenAI from 'openai';
import { didYouMean } from '../did-you-mean.js';
import { describeError } from '../errors.js';
import { describeModelEndpoint, modelEndpointHost } from '../llm/index.js';
import { describeNetworkFailure } from '../network-failure.js';
import { type CheckOutcome, ok, problem, type StartupCheck, skipped, warning } from './startup-check.js';

export interface ModelCheckOptions {
  /** Built at start-up (`startHoldfast`); the check asks once, without the SDK's retries, and gives up after `timeoutMs`. */
  readonly client: OpenAI;
  readonly model: string;
  readonly timeoutMs?: number;
}

/**
 * The configured model exists at the configured endpoint and the key is accepted: `models.retrieve`, and
 * when that says 404, `models.list` to tell an unknown model (with the closest name it serves) from an
 * endpoint that lists no models at all, which this check cannot judge.
 */
export function modelCheck(options: ModelCheckOptions): StartupCheck {
  const client = options.client.withOptions({ maxRetries: 0, timeout: options.timeoutMs ?? 10_000 });
  const endpoint = describeModelEndpoint(options.client.baseURL);
  const host = modelEndpointHost(options.client.baseURL);
  const { model } = options;
  return {
    name: 'model',
    async run() {
      try {
        await client.models.retrieve(model);
        return ok(`OPENAI_MODEL=${model} is served by ${endpoint}`);
      } catch (error) {
        if (!(error instanceof OpenAI.NotFoundError)) return failure(error, endpoint, host);
      }
      let served: string[];
      try {
        served = (await client.models.list()).data.map((entry) => entry.id);
      } catch (error) {
        if (!(error instanceof OpenAI.NotFoundError)) return failure(error, endpoint, host);
        return skipped(
          `${endpoint} lists no models, so OPENAI_MODEL=${model} could not be checked; if turns fail, check that OPENAI_BASE_URL is the API's base URL (it usually ends in /v1)`,
        );
      }
      if (served.includes(model)) return ok(`OPENAI_MODEL=${model} is served by ${endpoint}`);
      const suggestion = didYouMean(model, served);
      return problem(
        `OPENAI_MODEL=${model} does not exist at ${endpoint}`,
        suggestion
          ? `Did you mean \`${suggestion}\`? Set OPENAI_MODEL to a model the endpoint serves.`
          : `Set OPENAI_MODEL to a model the endpoint serves${served.length > 0 ? ` (it lists ${listed(served)})` : ''}.`,
      );
    },
  };
}

function failure(error: unknown, endpoint: string, host: string): CheckOutcome {
  if (error instanceof OpenAI.AuthenticationError || error instanceof OpenAI.PermissionDeniedError) {
    return problem(
      `OPENAI_API_KEY was rejected by ${endpoint} (HTTP ${error.status})`,
      'Set OPENAI_API_KEY to a valid key for this endpoint (and check it is for the right organisation or project).',
    );
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return warning(
      `${host} did not answer in time`,
      'If turns fail, check OPENAI_BASE_URL, and the network and proxy settings (HTTPS_PROXY).',
    );
  }
  // The provider's own trouble, not the configuration's: worth saying, not worth refusing to start over.
  if (error instanceof OpenAI.RateLimitError || error instanceof OpenAI.InternalServerError) {
    return warning(
      `${endpoint} answered HTTP ${error.status} when asked for the model`,
      'Turns will fail until the provider recovers.',
    );
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return problem(
      `could not reach the model endpoint ${host}: ${describeNetworkFailure(error.cause) ?? 'the connection failed'}`,
      'Check OPENAI_BASE_URL, and the network and proxy settings (HTTPS_PROXY).',
    );
  }
  if (error instanceof OpenAI.APIError) {
    return problem(
      `${endpoint} answered HTTP ${error.status ?? '?'} when asked for the model`,
      'Check OPENAI_BASE_URL and OPENAI_MODEL; the provider may also be having trouble.',
    );
  }
  return problem(`checking the model failed: ${describeError(error)}`, 'Check OPENAI_BASE_URL.');
}

function listed(models: readonly string[]): string {
  const shown = models.slice(0, 5).map((model) => `\`${model}\``);
  return models.length > 5 ? `${shown.join(', ')} and ${models.length - 5} more` : shown.join(', ');
}
