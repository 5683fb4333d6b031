import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Address ranges `http_request` does not reach without a person (or HOLDFAST_HTTP_INTERNAL_HOSTS) saying
 * so: everything that is not the public internet. IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`) are
 * matched against the IPv4 rules by BlockList itself; NAT64 addresses are judged by the IPv4 address they
 * carry.
 */
const ranges: ReadonlyArray<
  readonly [label: string, family: 'ipv4' | 'ipv6', network: string, prefix: number]
> = [
  ['"this network", 0.0.0.0/8', 'ipv4', '0.0.0.0', 8],
  ['private, RFC 1918', 'ipv4', '10.0.0.0', 8],
  ['carrier-grade NAT, 100.64/10', 'ipv4', '100.64.0.0', 10],
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['link-local, where cloud metadata services answer', 'ipv4', '169.254.0.0', 16],
  ['private, RFC 1918', 'ipv4', '172.16.0.0', 12],
  ['IETF protocol assignment', 'ipv4', '192.0.0.0', 24],
  ['documentation', 'ipv4', '192.0.2.0', 24],
  ['6to4 relay', 'ipv4', '192.88.99.0', 24],
  ['private, RFC 1918', 'ipv4', '192.168.0.0', 16],
  ['benchmarking', 'ipv4', '198.18.0.0', 15],
  ['documentation', 'ipv4', '198.51.100.0', 24],
  ['documentation', 'ipv4', '203.0.113.0', 24],
  ['multicast', 'ipv4', '224.0.0.0', 4],
  ['reserved', 'ipv4', '240.0.0.0', 4],
  ['unspecified', 'ipv6', '::', 128],
  ['loopback', 'ipv6', '::1', 128],
  ['IPv4-compatible, deprecated', 'ipv6', '::', 96],
  ['local-use NAT64', 'ipv6', '64:ff9b:1::', 48],
  ['discard-only', 'ipv6', '100::', 64],
  ['IETF protocol assignment, Teredo and others', 'ipv6', '2001::', 23],
  ['documentation', 'ipv6', '2001:db8::', 32],
  ['6to4', 'ipv6', '2002::', 16],
  ['unique local, fc00::/7', 'ipv6', 'fc00::', 7],
  ['link-local', 'ipv6', 'fe80::', 10],
  ['site-local', 'ipv6', 'fec0::', 10],
  ['multicast', 'ipv6', 'ff00::', 8],
];

const lists = ranges.map(([label, family, network, prefix]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { label, list };
});

const nat64 = new BlockList();
nat64.addSubnet('64:ff9b::', 96, 'ipv6');

/**
 * The kind of internal range an IP address is in (`loopback`, `private, RFC 1918`, …), or undefined for
 * a public address. Anything that is not a valid IP address counts as internal: never guess.
 */
export function internalRange(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIPv4(bare) ? 'ipv4' : isIPv6(bare) ? 'ipv6' : undefined;
  if (family === undefined) return 'not an IP address';
  const match = lists.find(({ list }) => list.check(bare, family));
  if (match) return match.label;
  if (family === 'ipv6' && nat64.check(bare, 'ipv6')) {
    const carried = embeddedIPv4(bare);
    return carried === undefined ? 'NAT64' : internalRange(carried);
  }
  return undefined;
}

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function embeddedIPv4(address: string): string | undefined {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
  if (dotted) return dotted;
  const groups = address.split(':');
  const high = Number.parseInt(groups.at(-2) || '0', 16);
  const low = Number.parseInt(groups.at(-1) || '0', 16);
  if (Number.isNaN(high) || Number.isNaN(low)) return undefined;
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}
