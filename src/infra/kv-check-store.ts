import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { CheckStore } from '../application/operator-checks.js';
import { openKvBucket } from './nats-buckets.js';
import { BUCKETS } from './topology.js';

/**
 * The operators' check results in the `operator-checks` KV bucket (src/infra/topology.ts): one key per check, a
 * JSON value, a few revisions kept by the per-subject limit. Written by put only — never a delete or a purge
 * (nats-server #4196).
 */
const KV_TIMEOUT_MS = 3000;

function storeOver(kv: KV): CheckStore {
  return {
    async get(key) {
      const e = await kv.get(key);
      if (e?.operation !== 'PUT' || e.value.length === 0) return null;
      return e.json();
    },
    async put(key, value) {
      await kv.put(key, JSON.stringify(value));
    },
  };
}

/** The api's store: the bucket is created when absent (the embedded node; provisioning creates it when clustered). */
export async function openCheckStore(nc: NatsConnection, replicas: number): Promise<CheckStore> {
  const b = BUCKETS.operatorChecks;
  return storeOver(await openKvBucket(nc, b.name, b.options, replicas, KV_TIMEOUT_MS));
}

/** The CLI's store: never created by the CLI; null when the deployment has no such bucket (it predates it). */
export async function openExistingCheckStore(nc: NatsConnection): Promise<CheckStore | null> {
  try {
    const kv = await new Kvm(nc).open(BUCKETS.operatorChecks.name);
    await kv.status(); // open() does not look; status() fails when the bucket's stream is absent
    return storeOver(kv);
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return null;
    throw err;
  }
}
