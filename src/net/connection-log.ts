/**
 * The egress proxy's memory of the connections it made (docs/capturing.md, Provenance): for each, the host asked
 * for, the checked address it connected to and when; for CONNECT tunnels also what the server presented
 * for TLS (tls-probe.ts), probed at connect time.
 *
 * One proxy serves every capture of a worker, and Chromium pools connections, so a capture asks for the
 * connections to the hosts its page used since the capture began. When two captures of one worker use the
 * same host at the same time each sees both connections — both are real observations of that host.
 */
import { probeTls, type TlsObservation } from './tls-probe.js';

export interface ObservedConnection {
  host: string;
  port: number;
  /** The address the proxy connected to, after the address policy checked it. */
  address: string;
  /** 'tunnel' (CONNECT, https and wss) or 'http' (plain http forwarded by the proxy). */
  via: 'tunnel' | 'http';
  connectedAt: string;
  /** For tunnels: the TLS probe's result; null with tlsError when the server did not speak TLS to the probe. */
  tls?: TlsObservation | null;
  tlsError?: string;
}

export interface ConnectionLogOptions {
  /** Probe the TLS server of every tunnel (default true). */
  probeTls?: boolean;
  /** How long connections are remembered; default 10 min. */
  windowMs?: number;
  /** Bound on remembered connections; default 5000 (oldest dropped first). */
  maxEntries?: number;
  /** Probe results are reused for the same host, address and port this long; default 5 min. */
  probeCacheMs?: number;
  probe?: typeof probeTls;
}

export interface ConnectionLog {
  record(event: { host: string; port: number; address: string; via: 'tunnel' | 'http' }): void;
  /** Connections to any of `hosts` made at or after `since` (epoch ms), probes awaited (bounded). */
  observed(hosts: Iterable<string>, since: number): Promise<ObservedConnection[]>;
}

interface Entry {
  at: number;
  connection: ObservedConnection;
  probing?: Promise<void>;
}

export function createConnectionLog(options: ConnectionLogOptions = {}): ConnectionLog {
  const windowMs = options.windowMs ?? 10 * 60_000;
  const maxEntries = options.maxEntries ?? 5000;
  const probeCacheMs = options.probeCacheMs ?? 5 * 60_000;
  const probe = options.probe ?? probeTls;
  const entries: Entry[] = [];
  const probes = new Map<string, { at: number; result: Promise<TlsObservation> }>();

  function probeOnce(host: string, address: string, port: number): Promise<TlsObservation> {
    const key = `${host}|${address}|${port}`;
    const cached = probes.get(key);
    if (cached && Date.now() - cached.at < probeCacheMs) return cached.result;
    const result = probe(address, port, host);
    result.catch(() => probes.delete(key)); // a failed probe is tried again next time
    probes.set(key, { at: Date.now(), result });
    if (probes.size > maxEntries) probes.delete(probes.keys().next().value!);
    return result;
  }

  function prune(now: number): void {
    while (entries.length > 0 && (entries.length > maxEntries || now - entries[0]!.at > windowMs)) entries.shift();
  }

  return {
    record({ host, port, address, via }) {
      const now = Date.now();
      const entry: Entry = {
        at: now,
        connection: { host, port, address, via, connectedAt: new Date(now).toISOString() },
      };
      if (via === 'tunnel' && options.probeTls !== false) {
        entry.probing = probeOnce(host, address, port).then(
          (tls) => void (entry.connection.tls = tls),
          (error: unknown) => {
            entry.connection.tls = null;
            entry.connection.tlsError = error instanceof Error ? error.message : String(error);
          },
        );
      }
      entries.push(entry);
      prune(now);
    },
    async observed(hosts, since) {
      const wanted = new Set([...hosts].map((h) => h.toLowerCase()));
      const matching = entries.filter((e) => e.at >= since && wanted.has(e.connection.host.toLowerCase()));
      await Promise.all(matching.map((e) => e.probing));
      return matching.map((e) => ({ ...e.connection }));
    },
  };
}
