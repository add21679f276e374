import { healthRoutes } from '../api/routes/health.js';
import { operatorViewRoutes } from '../api/routes/operator-views.js';
import { createAnalystReports } from '../application/analyst-reports.js';
import { createCapacity } from '../application/capacity.js';
import { createOperatorChecks } from '../application/operator-checks.js';
import { openCheckStore } from '../infra/kv-check-store.js';
import { jobQueueState } from '../ledger/job-backlog.js';
import { createReadiness } from '../observability/readiness.js';
import { ownLogMonitor } from '../transparency/own-log-monitor.js';
import type { ApiRuntime, Feature } from './feature.js';

/**
 * Running the service: health and readiness, the analysts' reports, the capacity view, and the operators' checks
 * (results the CLI records, and the log monitor run here against this deployment's log).
 */
export async function operationsFeature(api: ApiRuntime): Promise<Feature> {
  const { runtime, data, guard, operator } = api;
  const { config, nats } = runtime;
  const transparency = runtime.transparency;
  const checks = createOperatorChecks({
    store: await openCheckStore(nats.nc, config.NATS_REPLICAS),
    clock: runtime.clock,
    ownLogMonitor: transparency ? ownLogMonitor(transparency) : null,
  });
  return {
    routes: [
      healthRoutes(data.ctx, createReadiness(nats.nc, data.ctx.pool), data.artifacts.health),
      operatorViewRoutes({
        guard,
        operator,
        reports: createAnalystReports(data.ctx),
        capacity: createCapacity({
          config,
          jobQueue: jobQueueState(nats.jsm),
          runsWorker: runtime.roles.has('worker'),
        }),
        checks,
      }),
    ],
  };
}
