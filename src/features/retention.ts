import { retentionRoutes } from '../api/routes/retention.js';
import { createRetention } from '../application/retention.js';
import type { ApiRuntime, Feature } from './feature.js';

/** Retention and storage: how long evidence is kept, legal holds, and the locks the storage enforces. */
export function retentionFeature(api: ApiRuntime): Feature {
  const { ctx, artifacts } = api.data;
  return { routes: [retentionRoutes(api.guard, api.operator, createRetention(ctx, artifacts))] };
}
