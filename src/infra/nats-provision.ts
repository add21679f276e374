import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { SNAPSHOT_BUCKET } from '../actors/snapshot-store.js';
import { RATE_LIMIT_BUCKET, RATE_LIMIT_KV_OPTIONS } from '../api/kv-rate-limiter.js';
import { ARTIFACT_BUCKET, ensureStreams, ReplicasError } from '../ledger/streams.js';
import { WEBHOOK_KEY_BUCKET } from '../webhooks/webhook-secret-store.js';
import { ATTEMPTS_BUCKET, ATTEMPTS_KV_OPTIONS } from '../capture/attempt-store.js';
import { ensureLogStream } from '../transparency/log-stream.js';
import { CERTIFICATE_BUCKET } from '../evidence/certificate.js';
import { openKvBucket, openObjectBucket } from './nats-buckets.js';

/**
 * Create every stream, KV and object-store bucket with NATS_REPLICAS replicas, or bring existing ones to it:
 * the one step that needs the JetStream API's create and update subjects (DESIGN decision 11). `make cluster`
 * and docker-compose run it as the operator before the roles start, so a role's NATS user — the worker's
 * above all — never needs them; `make run` has one process and one user, which does it at start.
 */
export async function provisionNats(nc: NatsConnection, replicas: number, opts: { waitMs?: number } = {}): Promise<void> {
  // A cluster that has just started may not have all its JetStream peers yet ("no suitable peers for
  // placement"): wait for them rather than fail, up to `waitMs`.
  const deadline = Date.now() + (opts.waitMs ?? 120_000);
  for (;;) {
    try {
      await ensureStreams(await jetstreamManager(nc), replicas);
      break;
    } catch (err) {
      if (!(err instanceof ReplicasError) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  await openKvBucket(nc, RATE_LIMIT_BUCKET, RATE_LIMIT_KV_OPTIONS, replicas);
  await openKvBucket(nc, SNAPSHOT_BUCKET, { history: 1 }, replicas);
  await openKvBucket(nc, WEBHOOK_KEY_BUCKET, { history: 1 }, replicas);
  await openObjectBucket(nc, ARTIFACT_BUCKET, replicas);
  await openKvBucket(nc, ATTEMPTS_BUCKET, ATTEMPTS_KV_OPTIONS, replicas);
  // The API keeps signed certificates here (src/evidence/certificate.ts); it may not create buckets itself.
  await openKvBucket(nc, CERTIFICATE_BUCKET, { history: 1 }, replicas);
  await ensureLogStream(await jetstreamManager(nc), replicas);
}
