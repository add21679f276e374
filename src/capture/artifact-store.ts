import { Objm, type ObjectStore } from '@nats-io/obj';
import { StorageType } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { ARTIFACT_BUCKET } from '../ledger/streams.js';

/** Artifacts live beside the log (DESIGN decision 5), behind this small interface. */
export interface ArtifactStore {
  put(name: string, bytes: Uint8Array): Promise<void>;
  get(name: string): Promise<Uint8Array | null>;
}

export type ArtifactName = 'screenshot' | 'screenshot-before' | 'html' | 'headers' | 'wacz';

/** Object name of one artifact of one capture. */
export const artifactObjectName = (captureId: string, artifact: ArtifactName): string => `${captureId}/${artifact}`;

export async function openArtifactStore(nc: NatsConnection): Promise<ArtifactStore> {
  const objm = new Objm(nc);
  let store: ObjectStore;
  try {
    store = await objm.open(ARTIFACT_BUCKET);
  } catch {
    store = await objm.create(ARTIFACT_BUCKET, { storage: StorageType.File });
  }
  return {
    async put(name, bytes) {
      await store.putBlob({ name }, bytes);
    },
    get: (name) => store.getBlob(name),
  };
}
