// Name resolution shared by the URL check, the egress proxy and safeRequest: resolve every address of a
// host once, check each one, and hand back the checked addresses so the caller connects to one of them
// (pinning — the OS must not resolve the name a second time, DESIGN decision 6).
import { promises as dns, type RecordWithTtl } from 'node:dns';
import { isIP } from 'node:net';
import type { AddressPolicy } from './address-policy.js';
import { withTimeout } from '../infra/deadline.js';
import { parseIp } from './address-policy.js';

/** The port a URL connects to: its own, or its scheme's. */
export const portOf = (url: URL): number => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

/** Returns every address of a host name (IPv4 and IPv6, in resolver order). */
export type Resolver = (host: string) => Promise<string[]>;

/** One answer of the resolver, as it gave it (the provenance record names them). */
export interface DnsAnswer {
  name: string;
  type: 'A' | 'AAAA';
  /** Empty when the resolver answered with no record of this type (`error` then says how). */
  addresses: Array<{ address: string; ttl: number }>;
  /** The DNS servers asked (host:port). */
  resolver: string[];
  answeredAt: string;
  error?: string;
}

export const DEFAULT_RESOLVE_TIMEOUT_MS = 3_000;

/**
 * The service's resolver: DNS queries through c-ares (node:dns Resolver), which time out for real and hold
 * no libuv thread — dns.lookup runs getaddrinfo on the 4-thread pool, where a few slow names stall every file
 * and crypto operation of the process — and at most `concurrency` names at once, so a flood of names to check
 * queues here instead of piling up on the DNS server. /etc/hosts is not consulted (localhost is handled apart).
 */
export function createDnsResolver(
  opts: {
    timeoutMs?: number;
    tries?: number;
    concurrency?: number;
    servers?: string[];
    /** Told every answer (A and AAAA, with TTLs), for the captures' provenance records. */
    onAnswer?: (answer: DnsAnswer) => void;
  } = {},
): Resolver {
  const resolver = new dns.Resolver({ timeout: opts.timeoutMs ?? 1_500, tries: opts.tries ?? 2 });
  if (opts.servers) resolver.setServers(opts.servers);
  const report = (name: string, type: 'A' | 'AAAA', result: PromiseSettledResult<RecordWithTtl[]>): void => {
    if (!opts.onAnswer) return;
    const answeredAt = new Date().toISOString();
    const addresses =
      result.status === 'fulfilled' ? result.value.map((r) => ({ address: r.address, ttl: r.ttl })) : [];
    const error = result.status === 'rejected' ? describeError(result.reason) : undefined;
    opts.onAnswer({ name, type, addresses, resolver: resolver.getServers(), answeredAt, ...(error ? { error } : {}) });
  };
  const concurrency = opts.concurrency ?? 16;
  const waiting: Array<() => void> = [];
  let active = 0;
  return async (host) => {
    if (active >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      const [v4, v6] = await Promise.allSettled([
        resolver.resolve4(host, { ttl: true }),
        resolver.resolve6(host, { ttl: true }),
      ]);
      report(host, 'A', v4);
      report(host, 'AAAA', v6);
      const addresses = [
        ...(v4.status === 'fulfilled' ? v4.value.map((r) => r.address) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((r) => r.address) : []),
      ];
      if (addresses.length === 0 && v4.status === 'rejected') throw v4.reason;
      return addresses;
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

export const systemResolver: Resolver = createDnsResolver();

/** Strips IPv6 brackets and a trailing root dot, lower-cases. */
export function normaliseHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.') && h.length > 1) h = h.slice(0, -1);
  return h;
}

/**
 * The IP a host names literally, in canonical text form, or undefined for a real host name. Numeric forms
 * the OS resolver would also accept (2130706433, 0x7f.1) count as literals so they are checked as IPs.
 */
export function literalAddress(host: string): string | undefined {
  const h = normaliseHost(host);
  if (isIP(h) !== 0) return parseIp(h)?.toString() ?? h;
  // Only all-numeric/hex dotted strings can be lenient IPv4 forms; avoids treating "cafe" as a number.
  if (/^[0-9a-fx.]+$/i.test(h) && /^[0-9]/.test(h)) return parseIp(h)?.toString();
  return undefined;
}

/** RFC 6761: "localhost" and "*.localhost" always mean the loopback interface, whatever DNS says. */
export function isLocalhostName(host: string): boolean {
  const h = normaliseHost(host);
  return h === 'localhost' || h.endsWith('.localhost');
}

export type HostCheck =
  | { kind: 'allowed'; addresses: string[] }
  | { kind: 'blocked'; address: string; reason: string }
  | { kind: 'unresolved'; detail: string };

/**
 * Resolves a host (literal IPs are not resolved) and checks every address against the policy, with the port to
 * be connected to (this service's own listen addresses are refused). One non-allowed address blocks the host:
 * a name that answers with public and private addresses is refused.
 */
export async function resolveAndCheck(
  host: string,
  policy: AddressPolicy,
  resolve: Resolver = systemResolver,
  timeoutMs: number = DEFAULT_RESOLVE_TIMEOUT_MS,
  port?: number,
): Promise<HostCheck> {
  const literal = literalAddress(host);
  let addresses: string[];
  if (literal !== undefined) {
    addresses = [literal];
  } else if (isLocalhostName(host)) {
    // Both loopback addresses are the same machine: pin to whichever the policy allows.
    const allowed = ['127.0.0.1', '::1'].filter((a) => policy.check(a, port).allowed);
    if (allowed.length === 0) {
      const verdict = policy.check('127.0.0.1', port);
      return { kind: 'blocked', address: '127.0.0.1', reason: verdict.allowed ? 'not allowed' : verdict.reason };
    }
    return { kind: 'allowed', addresses: allowed };
  } else {
    try {
      addresses = await withTimeout(
        resolve(normaliseHost(host)),
        timeoutMs,
        () => new Error(`resolving ${host} timed out after ${timeoutMs} ms`),
      );
    } catch (err) {
      return { kind: 'unresolved', detail: describeError(err) };
    }
    if (addresses.length === 0) return { kind: 'unresolved', detail: `${host} has no addresses` };
  }
  for (const address of addresses) {
    const verdict = policy.check(address, port);
    if (!verdict.allowed) return { kind: 'blocked', address, reason: verdict.reason };
  }
  return { kind: 'allowed', addresses };
}

export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
