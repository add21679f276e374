// Which IP addresses the browser, the egress proxy and the webhook dispatcher may reach (DESIGN decision 6).
// Rule: only public unicast addresses, unless the address falls in an operator-configured allow-list
// (ALLOW_PRIVATE_TARGETS, for tests and intranets).
import ipaddr from 'ipaddr.js';
import type { OwnListeners } from './own-listeners.js';

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

export interface AddressPolicy {
  /**
   * Classifies one IP address (IPv4, IPv6, IPv4-mapped IPv6). Anything that is not an IP is refused. With the port
   * about to be connected to, this service's own listen addresses are refused too, allow-listed or not.
   */
  check(ip: string, port?: number): AddressVerdict;
  /** The allow-list as given, for logs and diagnostics. */
  readonly allowCidrs: readonly string[];
}

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

// IPv6 global unicast is 2000::/3; ipaddr.js calls everything outside its special list 'unicast', which
// would let the deprecated IPv4-compatible form (::127.0.0.1, i.e. ::7f00:1) and unallocated space through.
const IPV6_GLOBAL_UNICAST: Cidr = [ipaddr.IPv6.parse('2000::'), 3];

const RANGE_WORDING: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (100.64.0.0/10) address',
  private: 'a private network address',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique-local IPv6 address',
  deprecatedSiteLocal: 'a site-local IPv6 address',
  benchmarking: 'a benchmarking address',
  '6to4': 'a 6to4 IPv6 address (embeds an IPv4 address)',
  teredo: 'a Teredo IPv6 address (embeds an IPv4 address)',
  rfc6052: 'a NAT64 IPv6 address (embeds an IPv4 address)',
  rfc6145: 'an IPv4-translated IPv6 address',
};

export function createAddressPolicy(options: {
  allowCidrs: readonly string[];
  ownListeners?: OwnListeners;
}): AddressPolicy {
  const allowed = options.allowCidrs.map(parseAllowEntry);
  const allowCidrs = Object.freeze([...options.allowCidrs]);

  function isAllowListed(addr: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    return allowed.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits));
  }

  return {
    allowCidrs,
    check(ip: string, port?: number): AddressVerdict {
      const addr = parseIp(ip);
      if (!addr) return { allowed: false, reason: `${JSON.stringify(ip)} is not an IP address` };
      if (port !== undefined && options.ownListeners?.reaches(ip, port)) {
        return { allowed: false, reason: `${addr.toString()} port ${port} is this service's own address` };
      }
      if (isAllowListed(addr)) return { allowed: true };
      const range = classify(addr);
      if (range === 'unicast') return { allowed: true };
      const wording = RANGE_WORDING[range] ?? `a special-purpose address (${range})`;
      return { allowed: false, reason: `${addr.toString()} is ${wording}, not a public internet address` };
    },
  };
}

/**
 * Splits the ALLOW_PRIVATE_TARGETS value ("127.0.0.0/8, ::1/128") into entries; empty/undefined → [].
 * Each entry is validated (throws naming the bad value) so a typo stops the process at start.
 */
export function parseAllowCidrs(csv: string | undefined): string[] {
  if (csv === undefined) return [];
  const entries = csv
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  for (const entry of entries) parseAllowEntry(entry);
  return entries;
}

/**
 * Parses an IP the way the policy sees it: IPv4-mapped IPv6 (::ffff:a.b.c.d) becomes the IPv4 address,
 * brackets and zone ids are accepted. Lenient IPv4 forms (0x7f.1, 2130706433) are parsed as inet_aton
 * would, because that is what a resolver or socket would connect to.
 */
export function parseIp(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (!ipaddr.isValid(text)) return undefined;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(text);
  } catch {
    return undefined;
  }
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  return addr;
}

function classify(addr: ipaddr.IPv4 | ipaddr.IPv6): string {
  const range: string = addr.range();
  if (range !== 'unicast') return range;
  if (addr.kind() === 'ipv6' && !addr.match(IPV6_GLOBAL_UNICAST)) return 'reserved';
  return range;
}

function parseAllowEntry(entry: string): Cidr {
  const text = entry.trim();
  const bad = (why: string): Error =>
    new Error(`invalid CIDR ${JSON.stringify(entry)} in the private-target allow-list: ${why}`);
  const slash = text.indexOf('/');
  const ipPart = slash === -1 ? text : text.slice(0, slash);
  // Only canonical dotted-quad IPv4 here: "127.1/32" parsing as 127.0.0.1 would surprise an operator.
  if (!ipaddr.IPv6.isValid(ipPart) && !ipaddr.IPv4.isValidFourPartDecimal(ipPart)) {
    throw bad('expected an IPv4 or IPv6 network such as 10.0.0.0/8 or fd00::/8');
  }
  let cidr: Cidr;
  try {
    cidr = slash === -1 ? hostCidr(ipaddr.parse(ipPart)) : ipaddr.parseCIDR(text);
  } catch (err) {
    throw bad(err instanceof Error ? err.message : String(err));
  }
  const [net, bits] = cidr;
  // ::ffff:a.b.c.d/120 means the IPv4 network a.b.c.d/24: the policy compares mapped addresses as IPv4.
  if (net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(net as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return cidr;
}

function hostCidr(addr: ipaddr.IPv4 | ipaddr.IPv6): Cidr {
  return [addr, addr.kind() === 'ipv4' ? 32 : 128];
}
