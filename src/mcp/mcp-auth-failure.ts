import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  InvalidClientError,
  InvalidGrantError,
  InvalidScopeError,
  OAuthError,
  UnauthorizedClientError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { McpServerConfig } from '../config-mcp-servers.js';

/**
 * Why a remote server refused holdfast, said so an operator knows which line of the entry to fix; or
 * undefined when the failure had nothing to do with authorization. The server's and the authorization
 * server's own words are kept, since they often name the cause (an unknown client, a scope).
 */
export function describeAuthFailure(error: unknown, config: McpServerConfig): string | undefined {
  if (config.type !== 'http') return undefined;
  const at = `mcpServers.${config.name}.oauth`;
  if (!config.oauth) {
    if (error instanceof StreamableHTTPError && error.code === 401)
      return (
        'it requires OAuth (it answered 401 Unauthorized) and its entry has none: add ' +
        `"oauth": {"clientId": "…", "clientSecret": "\${VARIABLE}"} to ${config.name}, or the headers it expects`
      );
    return undefined;
  }
  const said = (oauthError: OAuthError) => `${oauthError.errorCode}: ${oauthError.message}`;
  if (error instanceof InvalidClientError || error instanceof UnauthorizedClientError)
    return `the authorization server refused holdfast's OAuth client (${said(error)}); check ${at}.clientId and ${at}.clientSecret`;
  if (error instanceof InvalidGrantError)
    return `the authorization server refused the grant (${said(error)}); check ${at}.refreshToken, or issue a new one`;
  if (error instanceof InvalidScopeError)
    return `the authorization server refused the scope (${said(error)}); check ${at}.scope`;
  if (error instanceof OAuthError) return `OAuth failed (${said(error)}); check ${at}`;
  if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403))
    return `it refused the access token the authorization server issued (${error.code}); check ${at}.scope and that the authorization server issues tokens for ${config.url}`;
  if (error instanceof Error && /authorization server|protected resource|OAuth/i.test(error.message))
    return `OAuth failed (${error.message}); check ${at}`;
  return undefined;
}
