import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { ensureStreams, ReplicasError } from '../ledger/streams.js';
import { isNatsUnavailable } from './nats-unavailable.js';
import { openKvBucket, openObjectBucket } from './nats-buckets.js';
import { BUCKETS } from './topology.js';

/**
 * Create every stream, KV and object-store bucket of the topology (topology.ts) with NATS_REPLICAS replicas, or bring existing ones to it:
 * the one step that needs the JetStream API's create and update subjects (DESIGN decision 11). `make cluster`
 * and docker-compose run it as the operator before the roles start, so a role's NATS user — the worker's
 * above all — never needs them; `make run` has one process and one user, which does it at start.
 */
export async function provisionNats(
  nc: NatsConnection,
  replicas: number,
  opts: { waitMs?: number } = {},
): Promise<void> {
  // A cluster that has just started may not have all its JetStream peers yet ("no suitable peers for
  // placement") or a meta leader to answer at all (a timeout): wait for them rather than fail, up to `waitMs`.
  const deadline = Date.now() + (opts.waitMs ?? 120_000);
  for (;;) {
    try {
      await ensureStreams(await jetstreamManager(nc), replicas);
      break;
    } catch (err) {
      if (!(err instanceof ReplicasError || isNatsUnavailable(err)) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  for (const bucket of Object.values(BUCKETS)) {
    if (bucket.kind === 'kv') await openKvBucket(nc, bucket.name, bucket.options, replicas);
    else await openObjectBucket(nc, bucket.name, replicas);
  }
}
