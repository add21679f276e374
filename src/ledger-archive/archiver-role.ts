import { StorageUnavailableError } from '../storage/artifact-store.js';
import type { ProcessRuntime } from '../roles/process-runtime.js';
import { loadLogSeed } from '../transparency/sequencer.js';
import { archiveLocation, openArchiveBucket } from './archive-bucket.js';
import { archiveKeys } from './archive-keys.js';
import { openArchiveState } from './archive-status.js';
import { startArchiver } from './archiver.js';

/**
 * The archive feature's sequencer part (index.ts has the api's): starts the archiver when ARCHIVE_URL is set; returns
 * its stop. The sequencer imports this module only then, so it loads the S3 client only for an archive.
 */
export async function startLedgerArchiver(runtime: ProcessRuntime): Promise<() => Promise<void>> {
  const { config, log } = runtime;
  const location = archiveLocation(config);
  if (!location) return async () => undefined;
  const generated = [
    ...(config.LOG_SIGNING_KEY ? [] : ['LOG_SIGNING_KEY (DATA_DIR/log-key.seed)']),
    ...(config.SIGNING_KEY ? [] : ['SIGNING_KEY (DATA_DIR/signing-key.seed)']),
  ];
  if (generated.length > 0)
    log.warn(
      `archive: ${generated.join(' and ')} ${generated.length > 1 ? 'were' : 'was'} generated into DATA_DIR; the archive never holds private keys, and a restore needs them: keep a copy where the loss of this machine cannot reach it (docs/operators.md, restore)`,
    );
  const keys = archiveKeys(config.LOG_ORIGIN, await loadLogSeed(config.LOG_SIGNING_KEY, runtime.dataDir));
  // A bucket that cannot lock objects, or credentials S3 refuses, stop the start; an outage only delays archiving.
  const open = () => openArchiveBucket(location, { create: true });
  const first = await open().catch((err: unknown) => {
    if (err instanceof StorageUnavailableError) return null;
    throw err;
  });
  const archiver = startArchiver({
    nats: runtime.nats,
    bucket: async () => first ?? open(),
    keys,
    state: await openArchiveState(runtime),
    intervalMs: config.ARCHIVE_INTERVAL_MS,
    maxRecords: config.ARCHIVE_SEGMENT_RECORDS,
    retentionDays: config.ARCHIVE_RETENTION_DAYS,
    now: () => runtime.clock.now(),
    log: log.child({ role: 'archiver' }),
  });
  log.info({ archive: location.url }, 'archive: archiver started');
  return () => archiver.stop();
}
