import { transparencyLogRoutes } from '../api/routes/transparency-log.js';
import type { ApiRuntime, Feature } from './feature.js';

/** The transparency log's checkpoints, tiles and proofs, where this deployment runs one. */
export function transparencyLogFeature(api: ApiRuntime): Feature {
  const log = api.runtime.transparency;
  return { routes: log ? [transparencyLogRoutes(log, api.guard)] : [] };
}
