/**
 * The worker's way out through each configured vantage point: per vantage, an egress proxy of its
 * own that resolves and checks every destination like the worker's direct one, then tunnels to the checked
 * address through the vantage's upstream — never directly — with a connection log whose TLS probes go through
 * the same upstream. Before each capture the vantage is asked where it exits (exit-probe.ts).
 */
import type { AddressPolicy } from '../net/address-policy.js';
import { createConnectionLog, type ObservedConnection } from '../net/connection-log.js';
import { type EgressExplanation, type EgressLogger, type EgressProxy, startEgressProxy } from '../net/egress-proxy.js';
import { ExitProbeError, probeExitAddress } from '../net/exit-probe.js';
import type { Resolver } from '../net/resolve.js';
import { probeTls } from '../net/tls-probe.js';
import { checkUpstream, openUpstreamTunnel } from '../net/upstream-tunnel.js';
import type { Vantage } from '../config/vantages.js';

/** Where a capture's vantage exited, as the provenance record states it. */
export interface VantageExit {
  /** The address the exit probe's server saw the request come from; null: not observed (no probe configured). */
  observedAddress: string | null;
  method: 'exit-probe' | 'not observed';
  probeUrl: string | null;
  observedAt: string | null;
  expectedAddress: string | null;
}

export class VantageUnavailableError extends Error {
  override readonly name = 'VantageUnavailableError';
}

export interface VantageRoute {
  readonly vantage: Vantage;
  /** The vantage's egress proxy, for the capture's browser context. */
  readonly proxyUrl: string;
  explain(url: string): EgressExplanation | undefined;
  observedConnections(hosts: Iterable<string>, since: number): Promise<ObservedConnection[]>;
  /** Checks the vantage answers and where it exits; throws VantageUnavailableError when it does not or exits elsewhere. */
  observeExit(): Promise<VantageExit>;
}

export interface VantageEgress {
  route(id: string): VantageRoute | undefined;
  /** The loopback ports of the vantages' proxies (a page must not make a proxy tunnel to itself). */
  readonly ports: number[];
  close(): Promise<void>;
}

const UPSTREAM_CHECK_MS = 10_000;

export async function startVantageEgress(options: {
  vantages: readonly Vantage[];
  policy: AddressPolicy;
  resolve?: Resolver;
  log?: EgressLogger;
}): Promise<VantageEgress> {
  const routes = new Map<string, VantageRoute>();
  const proxies: EgressProxy[] = [];
  try {
    for (const vantage of options.vantages) {
      const connections = createConnectionLog({
        probe: async (address, port, host) =>
          probeTls(address, port, host, 5000, await openUpstreamTunnel(vantage.upstream, address, port, 5000)),
      });
      const proxy = await startEgressProxy({
        policy: options.policy,
        connections,
        upstream: vantage.upstream,
        ...(options.resolve ? { resolve: options.resolve } : {}),
        ...(options.log ? { log: options.log } : {}),
      });
      proxies.push(proxy);
      routes.set(vantage.id, {
        vantage,
        proxyUrl: proxy.url,
        explain: (url) => proxy.explain(url),
        observedConnections: (hosts, since) => connections.observed(hosts, since),
        observeExit: () => observeExit(vantage, proxy),
      });
    }
  } catch (err) {
    await Promise.all(proxies.map((p) => p.close()));
    throw err;
  }
  return {
    route: (id) => routes.get(id),
    ports: proxies.map((p) => p.port),
    close: async () => {
      await Promise.all(proxies.map((p) => p.close()));
    },
  };
}

async function observeExit(vantage: Vantage, proxy: EgressProxy): Promise<VantageExit> {
  const expectedAddress = vantage.expectedExit ?? null;
  if (!vantage.exitProbeUrl) {
    try {
      await checkUpstream(vantage.upstream, UPSTREAM_CHECK_MS);
    } catch (err) {
      throw new VantageUnavailableError(`The vantage point ${vantage.id} is unavailable: ${(err as Error).message}`);
    }
    return { observedAddress: null, method: 'not observed', probeUrl: null, observedAt: null, expectedAddress };
  }
  let observedAddress: string;
  try {
    observedAddress = await probeExitAddress(proxy.url, vantage.exitProbeUrl);
  } catch (err) {
    const why =
      proxy.explain(vantage.exitProbeUrl)?.reason ?? (err instanceof ExitProbeError ? err.message : String(err));
    throw new VantageUnavailableError(
      `The vantage point ${vantage.id} is unavailable: its exit could not be observed (${why})`,
    );
  }
  if (expectedAddress !== null && observedAddress !== expectedAddress) {
    throw new VantageUnavailableError(
      `The vantage point ${vantage.id} exits from ${observedAddress}, not from ${expectedAddress} as configured`,
    );
  }
  return {
    observedAddress,
    method: 'exit-probe',
    probeUrl: vantage.exitProbeUrl,
    observedAt: new Date().toISOString(),
    expectedAddress,
  };
}
