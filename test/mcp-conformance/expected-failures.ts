/**
 * The client scenarios of the MCP conformance suite that holdfast fails on purpose, each failing check by
 * id, with the reason. run.ts fails on any other failing check, and on an entry here that now passes.
 */
interface ExpectedFailure {
  readonly reason: string;
  readonly checks: readonly string[];
}

/**
 * holdfast is a bot: no person signs in through a browser, so it never runs the authorization code flow
 * (nor dynamic registration, which only serves that flow). It takes tokens by client_credentials or from a
 * refresh token issued to it beforehand; a server that needs a person's sign-in fails start-up, saying so.
 */
const signInInBrowser = (checks: readonly string[]): ExpectedFailure => ({
  reason: 'needs a person to sign in through a browser (authorization code flow); holdfast has no browser',
  checks,
});
const codeFlow = ['client-registration', 'authorization-request', 'token-request'];

export const expectedFailures: Readonly<Record<string, ExpectedFailure>> = {
  'auth/metadata-default': signInInBrowser([
    'prm-pathbased-requested',
    'authorization-server-metadata',
    ...codeFlow,
  ]),
  'auth/metadata-var1': signInInBrowser([
    'prm-pathbased-requested',
    'authorization-server-metadata',
    ...codeFlow,
  ]),
  'auth/metadata-var2': signInInBrowser(['authorization-server-metadata', ...codeFlow]),
  'auth/metadata-var3': signInInBrowser(['authorization-server-metadata', ...codeFlow]),
  'auth/basic-cimd': signInInBrowser(['cimd-client-id-used']),
  'auth/scope-from-www-authenticate': signInInBrowser(['scope-from-www-authenticate']),
  'auth/scope-from-scopes-supported': signInInBrowser(['scope-from-scopes-supported']),
  'auth/scope-omitted-when-undefined': signInInBrowser(['scope-omitted-when-undefined']),
  'auth/scope-step-up': signInInBrowser(['scope-step-up-initial', 'scope-step-up-escalation']),
  'auth/scope-retry-limit': signInInBrowser(['scope-retry-limit']),
  'auth/token-endpoint-auth-basic': signInInBrowser([
    'token-endpoint-auth-method',
    'resource-parameter-in-authorization',
    'resource-parameter-in-token',
  ]),
  'auth/token-endpoint-auth-post': signInInBrowser([
    'token-endpoint-auth-method',
    'resource-parameter-in-authorization',
    'resource-parameter-in-token',
  ]),
  'auth/token-endpoint-auth-none': signInInBrowser([
    'token-endpoint-auth-method',
    'resource-parameter-in-authorization',
    'resource-parameter-in-token',
  ]),
  'auth/2025-03-26-oauth-metadata-backcompat': signInInBrowser([
    'authorization-server-metadata',
    ...codeFlow,
  ]),
  'auth/2025-03-26-oauth-endpoint-fallback': signInInBrowser(codeFlow),
  'auth/offline-access-scope': signInInBrowser(['sep-2207-offline-access-requested']),
  'auth/offline-access-not-supported': signInInBrowser(['sep-2207-offline-access-not-requested']),
  'auth/client-credentials-jwt': {
    reason:
      'the oauth entry takes a client secret or a refresh token; a private key (private_key_jwt) is not supported',
    checks: ['client-credentials-jwt-verified'],
  },
  'auth/cross-app-access-complete-flow': {
    reason:
      'the cross-app access extension (token exchange of an identity provider token, then a JWT bearer grant) is not supported',
    checks: ['complete-flow-token-exchange', 'complete-flow-jwt-bearer'],
  },
};
