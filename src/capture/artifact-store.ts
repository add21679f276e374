import type { NatsConnection } from '@nats-io/transport-node';
import { openObjectBucket } from '../infra/nats-buckets.js';
import { ARTIFACT_BUCKET } from '../ledger/streams.js';

/** Artifacts live beside the log (DESIGN decision 5), behind this small interface. */
export interface ArtifactStore {
  put(name: string, bytes: Uint8Array): Promise<void>;
  get(name: string): Promise<Uint8Array | null>;
  /** The object store's digest of what is stored under `name` now (changes with every put), or null. */
  digest(name: string): Promise<string | null>;
}

export async function openArtifactStore(nc: NatsConnection, replicas = 1): Promise<ArtifactStore> {
  const store = await openObjectBucket(nc, ARTIFACT_BUCKET, replicas);
  return {
    async put(name, bytes) {
      await store.putBlob({ name }, bytes);
    },
    get: (name) => store.getBlob(name),
    async digest(name) {
      const info = await store.info(name);
      return info && !info.deleted ? info.digest : null;
    },
  };
}
