import type { ApiRuntime, Feature } from '../features/feature.js';
import { openKvBucket } from '../infra/nats-buckets.js';
import { BUCKETS } from '../infra/topology.js';
import { addScrapeProbe } from '../observability/metrics.js';
import type { ProcessRuntime } from '../roles/process-runtime.js';
import { StorageUnavailableError } from '../storage/artifact-store.js';
import { loadLogSeed } from '../transparency/sequencer.js';
import { archiveLocation, openArchiveBucket } from './archive-bucket.js';
import { archiveKeys } from './archive-keys.js';
import { archiveRoutes } from './archive-routes.js';
import { archiveLag, exportArchiveLag } from './archive-status.js';
import { startArchiver } from './archiver.js';

/**
 * The archive feature (docs/operators.md, The archive): the archiver, which the sequencer role runs (it holds
 * the log key the segments are signed with), and the operators' view of its lag, which the api role serves.
 * Without ARCHIVE_URL the archiver does not start and the view answers 404.
 */
const openState = (runtime: ProcessRuntime) =>
  openKvBucket(runtime.nats.nc, BUCKETS.archiveState.name, BUCKETS.archiveState.options, runtime.config.NATS_REPLICAS);

/** The sequencer's part: starts the archiver when ARCHIVE_URL is set; returns its stop. */
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
    state: await openState(runtime),
    intervalMs: config.ARCHIVE_INTERVAL_MS,
    maxRecords: config.ARCHIVE_SEGMENT_RECORDS,
    retentionDays: config.ARCHIVE_RETENTION_DAYS,
    now: () => runtime.clock.now(),
    log: log.child({ role: 'archiver' }),
  });
  log.info({ archive: location.url }, 'archive: archiver started');
  return () => archiver.stop();
}

/** The api's part: `GET /v1/admin/archive`, and the lag on /metrics. */
export async function ledgerArchiveFeature({ runtime, guard, operator }: ApiRuntime): Promise<Feature> {
  if (!runtime.config.ARCHIVE_URL) return { routes: [archiveRoutes({ guard, operator, lag: null })] };
  const state = await openState(runtime);
  const lag = () => archiveLag(runtime.nats.jsm, state, runtime.clock.now());
  addScrapeProbe(async () => exportArchiveLag(await lag()));
  return { routes: [archiveRoutes({ guard, operator, lag })] };
}
