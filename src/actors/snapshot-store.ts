import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { openKvBucket } from '../infra/nats-buckets.js';
import { BUCKETS } from '../infra/topology.js';

/**
 * Where actor snapshots live: a NATS KV bucket keyed by actor key (the tenant id), one value per key
 * (history 1). Replicated like every other bucket (DESIGN decision 10). Losing it loses nothing: the log is
 * the truth and every snapshot can be rebuilt from it.
 */
export const SNAPSHOT_BUCKET = BUCKETS.snapshots.name;

export interface SnapshotStore {
  get(key: string): Promise<Uint8Array | null>;
  put(key: string, value: Uint8Array): Promise<void>;
}

// NATS KV keys allow [-/_=.a-zA-Z0-9]; tenant ids (^[a-z0-9_-]{1,64}$) always fit. Other keys are not cached.
const KV_KEY = /^[-/_=a-zA-Z0-9]+(\.[-/_=a-zA-Z0-9]+)*$/;

function storeOver(kv: KV): SnapshotStore {
  return {
    async get(key) {
      if (!KV_KEY.test(key)) return null;
      const e = await kv.get(key);
      return e && e.operation === 'PUT' && e.value.length > 0 ? e.value : null;
    },
    async put(key, value) {
      if (KV_KEY.test(key)) await kv.put(key, value);
    },
  };
}

/** Open the bucket, creating it when absent (every process may call this at start). */
export async function openSnapshotStore(
  nc: NatsConnection,
  opts: { replicas?: number; bucket?: string } = {},
): Promise<SnapshotStore> {
  const kv = await openKvBucket(nc, opts.bucket ?? SNAPSHOT_BUCKET, { history: 1 }, opts.replicas ?? 1);
  return storeOver(kv);
}

/** Open the bucket only if it exists (operator tools never create it); null when absent. */
export async function openExistingSnapshotStore(
  nc: NatsConnection,
  bucket: string = SNAPSHOT_BUCKET,
): Promise<SnapshotStore | null> {
  try {
    const kv = await new Kvm(nc).open(bucket);
    await kv.status(); // open() does not look; status() reads the bucket's stream and fails when it is absent
    return storeOver(kv);
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return null;
    throw err;
  }
}
