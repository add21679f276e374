import type { NatsConnection } from '@nats-io/transport-node';
import { type StorageSettings, storageSettings } from '../config/storage-config.js';
import type { Config } from '../config/config.js';
import type { ArtifactStore } from './artifact-store.js';
import { openArtifactStore } from './jetstream-artifact-store.js';
import type { S3StoreOptions } from './s3-artifact-store.js';

/**
 * The artifact store the configuration names (ARTIFACT_STORE; docs/storage.md): JetStream by default, or S3
 * (`opts.requireLock`: refused without Object Lock when retention is configured, unless S3_ALLOW_UNLOCKED). The S3
 * adapter (and the AWS SDK under it, most of a second of CPU to load) is imported only when configured.
 */
export async function openConfiguredArtifactStore(
  settings: StorageSettings,
  nc: NatsConnection,
  replicas = 1,
  opts: S3StoreOptions = {},
): Promise<ArtifactStore> {
  if (settings.kind !== 's3') return openArtifactStore(nc, replicas);
  const { openS3ArtifactStore } = await import('./s3-artifact-store.js');
  return openS3ArtifactStore(settings, opts);
}

/** The storage settings of a parsed configuration. */
export const storageOf = (config: Config): StorageSettings => storageSettings(config);
