import type { NatsConnection } from '@nats-io/transport-node';
import { type StorageSettings, storageSettings } from '../config/storage-config.js';
import type { Config } from '../config/config.js';
import { type ArtifactStore, openArtifactStore } from './artifact-store.js';
import { openS3ArtifactStore, type S3StoreOptions } from './s3-artifact-store.js';

/**
 * The artifact store the configuration names (ARTIFACT_STORE; docs/storage.md): JetStream by default, or S3
 * (`opts.requireLock`: refused without Object Lock when retention is configured, unless S3_ALLOW_UNLOCKED).
 */
export async function openConfiguredArtifactStore(
  settings: StorageSettings,
  nc: NatsConnection,
  replicas = 1,
  opts: S3StoreOptions = {},
): Promise<ArtifactStore> {
  return settings.kind === 's3' ? openS3ArtifactStore(settings, opts) : openArtifactStore(nc, replicas);
}

/** The storage settings of a parsed configuration. */
export const storageOf = (config: Config): StorageSettings => storageSettings(config);
