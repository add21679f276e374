import type { ApiRuntime, Feature } from '../features/feature.js';
import { createCaptureDiffs } from './capture-diff-service.js';
import { captureDiffRoutes } from './diff-routes.js';
import { startWatchRunner } from './watch-runner.js';

/**
 * Watch lists: the diff of two captures (and its signed change certificate), and the consumer that compares each
 * watched schedule run with the one before and notifies when the watch's thresholds are crossed.
 */
export async function watchFeature(api: ApiRuntime): Promise<Feature> {
  const { runtime, data, guard } = api;
  const { ctx, artifacts } = data;
  const diffs = createCaptureDiffs(ctx, artifacts, runtime.evidenceNotary, api.evidenceRetainUntil);
  const runner = await startWatchRunner({
    js: runtime.nats.js,
    jsm: runtime.nats.jsm,
    pool: ctx.pool,
    waiter: ctx.waiter,
    tenants: ctx.tenants,
    diffs,
    log: runtime.log.child({ role: 'watch' }),
  });
  return { routes: [captureDiffRoutes(guard, diffs)], stop: () => runner.stop() };
}
