/** Where the OpenAI SDK sends requests when `OPENAI_BASE_URL` is not set. */
export const OPENAI_BASE_URL_DEFAULT = 'https://api.openai.com/v1';

/**
 * Where the model is served, for people: "OpenAI (https://api.openai.com/v1)", or the configured base URL
 * without the parts that may hold credentials (user info, query, fragment).
 */
export function describeModelEndpoint(baseUrl: string | undefined): string {
  let url: URL;
  try {
    url = new URL(baseUrl ?? OPENAI_BASE_URL_DEFAULT);
  } catch {
    return 'the configured OPENAI_BASE_URL';
  }
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  const shown = url.href.replace(/\/$/, '');
  return url.host === 'api.openai.com' ? `OpenAI (${shown})` : shown;
}

/** The host alone, for "could not reach <host>". */
export function modelEndpointHost(baseUrl: string | undefined): string {
  try {
    return new URL(baseUrl ?? OPENAI_BASE_URL_DEFAULT).host;
  } catch {
    return 'the configured OPENAI_BASE_URL';
  }
}
