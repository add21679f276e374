import type { NatsConnection } from '@nats-io/transport-node';

/**
 * Whether this process is connected to a nats-server at all, from the connection's own status events. Losing
 * one node of a cluster is a reconnect within a couple of seconds (the client's reconnect wait); being without
 * any server for longer is an outage, which the API answers at once (503) rather than after its retries.
 */
export interface NatsLink {
  /** Milliseconds since the connection was lost, 0 while connected. */
  downForMs(): number;
  stop(): void;
}

export function watchNatsLink(nc: NatsConnection): NatsLink {
  let downSince: number | null = null;
  let stopped = false;
  void (async () => {
    for await (const s of nc.status()) {
      if (stopped) break;
      if (s.type === 'disconnect') downSince ??= Date.now();
      else if (s.type === 'reconnect') downSince = null;
    }
  })().catch(() => undefined);
  return {
    downForMs: () => (downSince === null ? 0 : Date.now() - downSince),
    stop: () => void (stopped = true),
  };
}
