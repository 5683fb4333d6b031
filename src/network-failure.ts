/** System error codes as people read them, for failures to reach another host. */
const reasons: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused: nothing is listening there',
  ENOTFOUND: 'the host name does not resolve (DNS)',
  EAI_AGAIN: 'the DNS lookup failed for now',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  EPIPE: 'the connection was closed',
  UND_ERR_SOCKET: 'the connection was closed',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its TLS certificate is not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host name',
};

/**
 * Why a connection failed, in words ("connection refused: nothing is listening there (ECONNREFUSED)"),
 * from the first system error code found along the `cause` chain (fetch wraps the socket's error).
 * Undefined when there is no such code.
 */
export function describeNetworkFailure(error: unknown): string | undefined {
  const code = networkErrorCode(error);
  if (!code) return undefined;
  const reason = reasons[code];
  return reason ? `${reason} (${code})` : code;
}

function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
