import type { FastifyInstance } from 'fastify';
import { buildApp } from '../api/app.js';
import { mcpRoutes } from '../api/mcp/mcp-routes.js';
import type { UsageRecorder } from '../api/usage-recorder.js';
import { evidenceRetention } from '../application/retention.js';
import { capturesFeature } from '../features/captures.js';
import { openCallerAccess } from '../features/caller-access.js';
import { consoleFeature } from '../features/console.js';
import { type ApiRuntime, featureList } from '../features/feature.js';
import { operationsFeature } from '../features/operations.js';
import { retentionFeature } from '../features/retention.js';
import { schedulesFeature } from '../features/schedules.js';
import { tenancyFeature } from '../features/tenancy.js';
import { transparencyLogFeature } from '../features/transparency-log.js';
import { verificationFeature } from '../features/verification.js';
import { webhooksFeature } from '../features/webhooks.js';
import { watchNatsLink } from '../infra/nats-link.js';
import { vantagesFeature } from '../vantages/vantages-feature.js';
import { watchFeature } from '../watch/watch-feature.js';
import { profilesFeature } from '../profiles/index.js';
import { ledgerArchiveFeature } from '../ledger-archive/index.js';
import { remoteBrowserFeature } from '../profiles/remote-browser/index.js';
import type { DatabaseRuntime } from './database-runtime.js';
import type { ProcessRuntime } from './process-runtime.js';

export interface ApiRole {
  app: FastifyInstance;
  url: string;
  /** Counts of API calls not yet recorded; `stop()` records them and ends the periodic flush. */
  usage: UsageRecorder;
  stop(): Promise<void>;
}

/**
 * The api role: serves REST and MCP for the features listed below, each made of its application services
 * (docs/architecture.md, Features). Both ways in call the same services (DESIGN decision 15).
 */
export async function startApiRole(runtime: ProcessRuntime, data: DatabaseRuntime): Promise<ApiRole> {
  const { config, log } = runtime;
  const access = await openCallerAccess(runtime, data);
  const { guard, operator, cors } = access;
  const api: ApiRuntime = { runtime, data, guard, operator, cors, evidenceRetainUntil: retention(data) };
  const features = featureList();
  try {
    // Every feature this role runs, in the order their routes register: a new feature is one line here.
    const vantages = await features.start(vantagesFeature(api));
    const captures = await features.start(capturesFeature(api, vantages.corroborations));
    const verification = await features.start(verificationFeature(api, captures.reads, vantages.corroborations));
    await features.start(watchFeature(api));
    await features.start(schedulesFeature(api));
    await features.start(webhooksFeature(api));
    const profiles = await features.start(profilesFeature(api));
    const states = runtime.profileStates ?? profiles.states;
    const { policy, ownListeners } = data;
    await features.start(remoteBrowserFeature({ config, policy, ownListeners, states, guard, log }));
    await features.start(tenancyFeature(api));
    await features.start(retentionFeature(api));
    await features.start(transparencyLogFeature(api));
    await features.start(operationsFeature(api));
    await features.start(ledgerArchiveFeature(api));
    await features.start(consoleFeature(api, access.sessions, verification.replayOrigin));
  } catch (err) {
    await features.stop();
    await access.stop();
    throw err;
  }

  const natsLink = watchNatsLink(runtime.nats.nc);
  const app = await buildApp({
    log,
    natsDownForMs: natsLink.downForMs,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    metricsToken: config.METRICS_TOKEN,
    trustProxy: config.TRUST_PROXY,
    plugins: [...features.routes(), mcpRoutes({ guard, cors, tools: features.mcpTools() })],
  });
  const url = await app.listen({ port: config.PORT, host: config.HOST });
  for (const bound of app.addresses()) if (typeof bound !== 'string') data.ownListeners.add(bound.address, bound.port);
  return {
    app,
    url,
    usage: access.usage,
    async stop() {
      await app.close();
      natsLink.stop();
      await access.stop();
      await features.stop();
    },
  };
}

/** Until when what is made of a capture later is locked like its own artifacts (docs/storage.md, Retention). */
const retention = (data: DatabaseRuntime) => evidenceRetention(data.ctx, data.artifacts);
