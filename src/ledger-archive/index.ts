import type { ApiRuntime, Feature } from '../features/feature.js';
import { addScrapeProbe } from '../observability/metrics.js';
import { archiveRoutes } from './archive-routes.js';
import { archiveLag, exportArchiveLag, openArchiveState } from './archive-status.js';

/**
 * The archive feature (docs/operators.md, The archive): the archiver, which the sequencer role runs (it holds
 * the log key the segments are signed with), and the operators' view of its lag, which the api role serves.
 * Without ARCHIVE_URL the archiver does not start and the view answers 404. The sequencer's part is
 * archiver-role.ts, which the sequencer loads only with ARCHIVE_URL set (with the S3 client).
 *
 * The api's part: `GET /v1/admin/archive`, and the lag on /metrics.
 */
export async function ledgerArchiveFeature({ runtime, guard, operator }: ApiRuntime): Promise<Feature> {
  if (!runtime.config.ARCHIVE_URL) return { routes: [archiveRoutes({ guard, operator, lag: null })] };
  const state = await openArchiveState(runtime);
  const lag = () => archiveLag(runtime.nats.jsm, state, runtime.clock.now());
  addScrapeProbe(async () => exportArchiveLag(await lag()));
  return { routes: [archiveRoutes({ guard, operator, lag })] };
}
