import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuthConfig } from '../config-mcp-servers.js';

/** A token this close to its end is treated as ended: a call must not start with one that lapses mid-way. */
const EXPIRY_MARGIN_MS = 30_000;
/** How many issued tokens are remembered, to be hidden wherever a server repeats one. */
const REMEMBERED_TOKENS = 16;

/**
 * The OAuth state of one remote MCP server, for the SDK's `auth()`: holdfast has no browser, so it takes
 * tokens only through grants that need none. With a refresh token configured, each access token comes
 * from the refresh_token grant; otherwise from client_credentials. Discovery, client authentication and
 * the token requests themselves are the SDK's; this only holds what they produce, in memory.
 *
 * An access token past its `expires_in` is not offered again: the server's 401 then makes the transport
 * ask `auth()` for a new one, as it does when the server ends a token early.
 */
export class McpOAuthProvider implements OAuthClientProvider {
  readonly #config: McpOAuthConfig;
  readonly #now: () => number;
  #client: OAuthClientInformationMixed;
  #tokens: OAuthTokens | undefined;
  #expiresAt = Number.POSITIVE_INFINITY;
  /** The refresh token to send next: the configured one until the authorization server rotates it. */
  #refreshToken: string | undefined;
  /** The tokens issued lately: credentials the redactor was never configured with, as they exist only at run time. */
  #issued: string[] = [];

  constructor(config: McpOAuthConfig, now: () => number = Date.now) {
    this.#config = config;
    this.#now = now;
    this.#refreshToken = config.refreshToken;
    this.#client = {
      client_id: config.clientId,
      ...(config.clientSecret ? { client_secret: config.clientSecret } : {}),
      // Bound from the start when the operator named the authorization server; otherwise the SDK binds
      // the client to the first one that accepts it, and never sends the secret to another.
      ...(config.issuer ? { issuer: config.issuer } : {}),
    };
  }

  /** Non-interactive: no redirect, so `auth()` goes straight to the token endpoint. */
  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'holdfast',
      redirect_uris: [],
      grant_types: [this.#config.refreshToken ? 'refresh_token' : 'client_credentials'],
      token_endpoint_auth_method: this.#config.clientSecret ? 'client_secret_basic' : 'none',
      ...(this.#config.scope ? { scope: this.#config.scope } : {}),
    };
  }

  clientInformation(): OAuthClientInformationMixed {
    return this.#client;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.#client = information;
  }

  tokens(): OAuthTokens | undefined {
    if (this.#tokens && this.#now() >= this.#expiresAt - EXPIRY_MARGIN_MS) this.#tokens = undefined;
    return this.#tokens;
  }

  /** Access and refresh tokens issued to holdfast lately, newest last. */
  get issuedTokens(): readonly string[] {
    return this.#issued;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#issued = [
      ...this.#issued,
      tokens.access_token,
      ...(tokens.refresh_token ? [tokens.refresh_token] : []),
    ]
      .filter((token, index, all) => all.indexOf(token) === index)
      .slice(-REMEMBERED_TOKENS);
    this.#tokens = tokens;
    this.#expiresAt =
      tokens.expires_in === undefined ? Number.POSITIVE_INFINITY : this.#now() + tokens.expires_in * 1000;
    if (tokens.refresh_token && this.#config.refreshToken) this.#refreshToken = tokens.refresh_token;
  }

  prepareTokenRequest(scope?: string): URLSearchParams {
    const params = this.#refreshToken
      ? new URLSearchParams({ grant_type: 'refresh_token', refresh_token: this.#refreshToken })
      : new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    // The client's identity is configuration, not something learnt: only tokens can be dropped.
    if (scope === 'all' || scope === 'tokens') this.#tokens = undefined;
  }

  redirectToAuthorization(): never {
    throw new Error('holdfast has no browser: an MCP server that needs a person to sign in is not supported');
  }

  saveCodeVerifier(): void {}

  codeVerifier(): never {
    throw new Error('holdfast does not use the authorization code grant');
  }
}
