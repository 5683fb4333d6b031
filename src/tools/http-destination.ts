import dns from 'node:dns/promises';
import { isIP } from 'node:net';
import { internalRange } from './internal-address.js';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Host name to addresses; injected so tests never ask real DNS. */
export type ResolveHost = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const resolveWithSystem: ResolveHost = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

export interface InternalAddress extends ResolvedAddress {
  /** Which internal range, for people: `loopback`, `private (RFC 1918)`, … */
  readonly range: string;
}

export type Destination =
  | {
      readonly type: 'resolved';
      /** The URL's host name without IPv6 brackets. */
      readonly hostname: string;
      readonly addresses: readonly ResolvedAddress[];
      /** The first address in an internal range, if any: one is enough to treat the host as internal. */
      readonly internal?: InternalAddress;
    }
  | { readonly type: 'unresolved'; readonly hostname: string; readonly message: string };

/**
 * Where a URL would connect: an IP literal as written, a name through `resolve`. Every address is judged,
 * not just the first, since the connection may use any of them.
 */
export async function inspectDestination(url: URL, resolve: ResolveHost): Promise<Destination> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: readonly ResolvedAddress[];
  const literal = isIP(hostname);
  if (literal !== 0) {
    addresses = [{ address: hostname, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(hostname);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return {
        type: 'unresolved',
        hostname,
        message: `could not resolve ${hostname}${code ? ` (${code})` : ''}`,
      };
    }
    if (addresses.length === 0) {
      return { type: 'unresolved', hostname, message: `could not resolve ${hostname} (no addresses)` };
    }
  }
  for (const address of addresses) {
    const range = internalRange(address.address);
    if (range !== undefined)
      return { type: 'resolved', hostname, addresses, internal: { ...address, range } };
  }
  return { type: 'resolved', hostname, addresses };
}

/** "10.0.0.5 is an internal address (private, RFC 1918)", or "x resolves to 10.0.0.5, an internal …". */
export function describeInternal(hostname: string, internal: InternalAddress): string {
  return hostname === internal.address
    ? `${hostname} is an internal address (${internal.range})`
    : `${hostname} resolves to ${internal.address}, an internal address (${internal.range})`;
}
