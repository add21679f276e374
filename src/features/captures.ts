import { captureTools } from '../api/mcp/mcp-tools.js';
import { captureRoutes } from '../api/routes/captures.js';
import { type CaptureAdmission, createCaptureAdmission } from '../application/capture-admission.js';
import { type CaptureReads, createCaptureReads } from '../application/capture-reads.js';
import { serveCaptureOutcomes } from '../capture/capture-outcome-answers.js';
import { jobBacklog } from '../ledger/job-backlog.js';
import type { Corroborations } from '../vantages/corroboration-service.js';
import type { ApiRuntime, Feature } from './feature.js';

export interface CapturesFeature extends Feature {
  admission: CaptureAdmission;
  reads: CaptureReads;
}

/**
 * Captures: admission (scope, quota, rate, the job backlog), the reads of status and records, and the outcomes
 * workers in other processes report, which this role decides and appends (the tenant actors live here).
 */
export function capturesFeature(api: ApiRuntime, corroborations: Corroborations | undefined): CapturesFeature {
  const { runtime, data, guard, cors } = api;
  const { ctx, artifacts, policy } = data;
  const outcomes = serveCaptureOutcomes(runtime.nats.nc, ctx.tenants, runtime.log.child({ role: 'capture-outcomes' }));
  const admission = createCaptureAdmission({
    ctx,
    policy,
    backlog: jobBacklog(runtime.nats.jsm),
    takeTenantTokens: guard.takeTenantTokens,
    ...(corroborations ? { corroborations } : {}),
  });
  const reads = createCaptureReads(ctx, artifacts, runtime.transparency ?? undefined);
  return {
    admission,
    reads,
    routes: [captureRoutes({ guard, admission, reads, cors, corroborations })],
    mcpTools: captureTools({ admission, reads }),
    stop: () => outcomes.stop(),
  };
}
