import { retentionPolicy } from '../application/retention.js';
import { availableParallelism } from 'node:os';
import { openAttemptStore } from '../capture/attempt-store.js';
import { defaultPageDelayMs } from '../capture/attempt-policy.js';
import { createBrowserPool } from '../capture/browser-pool.js';
import { startCapacityGovernor } from '../capture/capacity-governor.js';
import { localCaptureOutcomes, natsCaptureOutcomes } from '../capture/capture-outcomes.js';
import { startCaptureWorker } from '../capture/capture-worker.js';
import { startHostLoad } from '../capture/host-load.js';
import { startJobFeeder } from '../capture/job-feeder.js';
import { openMemberClaims } from '../capture/member-claims.js';
import { createConnectionLog } from '../net/connection-log.js';
import { createDnsAnswerLog } from '../net/dns-answer-log.js';
import { startEgressProxy } from '../net/egress-proxy.js';
import { createDnsResolver } from '../net/resolve.js';
import { startVantageEgress } from '../vantages/vantage-egress.js';
import { profilesForWorker } from '../profiles/index.js';
import type { DatabaseRuntime } from './database-runtime.js';
import type { ProcessRuntime } from './process-runtime.js';

/**
 * The worker role: feeds capture jobs from the log, renders them in sandboxed Chromium behind the filtering
 * egress proxy (DESIGN decision 6), has bundles signed by the signer, and reports outcomes to the tenant actors —
 * in this process when it has the api role, else to an api process over NATS (docs/security.md).
 */
export async function startWorkerRole(runtime: ProcessRuntime, data: DatabaseRuntime): Promise<() => Promise<void>> {
  const { config, nats, clock } = runtime;
  const log = runtime.log.child({ role: 'worker' });
  const feeder = await startJobFeeder(nats.js, nats.jsm, runtime.log.child({ role: 'job-feeder' }));
  const connections = createConnectionLog(); // what the proxy connected to, for provenance records
  const dnsAnswers = createDnsAnswerLog(); // what the resolver answered, likewise
  const resolve = createDnsResolver({ onAnswer: (answer) => dnsAnswers.record(answer) });
  const proxy = await startEgressProxy({
    policy: data.policy,
    connections,
    resolve,
    log: runtime.log.child({ role: 'egress-proxy' }),
  });
  data.ownListeners.add('127.0.0.1', proxy.port); // a page must not make the proxy tunnel to itself
  const vantages = await startVantageEgress({
    vantages: config.VANTAGES,
    policy: data.policy,
    resolve,
    log: runtime.log.child({ role: 'egress-proxy', vantage: true }),
  });
  for (const port of vantages.ports) data.ownListeners.add('127.0.0.1', port);
  // Overload is slowness (DESIGN decision 13): bounds count page time, concurrency follows the host's capacity.
  const hostLoad = startHostLoad();
  const browsers = createBrowserPool({
    chromiumPath: config.CHROMIUM_PATH,
    proxyServer: proxy.url,
    concurrency: config.WORKER_CONCURRENCY,
    hostLoad,
  });
  const governor = startCapacityGovernor({
    hostLoad,
    max: config.WORKER_CONCURRENCY,
    min: availableParallelism(),
    running: () => browsers.stats().running,
    apply: (limit) => browsers.setConcurrency(limit),
    log,
  });
  const worker = await startCaptureWorker({
    js: nats.js,
    jsm: nats.jsm,
    outcomes: runtime.roles.has('api') ? localCaptureOutcomes(data.ctx.tenants) : natsCaptureOutcomes(nats.nc),
    artifacts: data.artifacts,
    retention: retentionPolicy(data.ctx, data.artifacts),
    browsers,
    log,
    clock,
    concurrency: () => governor.limit(),
    timeoutMs: config.CAPTURE_TIMEOUT_MS,
    attempts: await openAttemptStore(nats.nc, config.NATS_REPLICAS),
    memberClaims: await openMemberClaims(nats.nc, config.NATS_REPLICAS),
    policy: { serviceDelaysMs: config.CAPTURE_RETRY_DELAYS.map((s) => s * 1000), pageDelayMs: defaultPageDelayMs },
    explainNetworkError: (url) => proxy.explain(url),
    ...(runtime.evidenceNotary ? { notary: runtime.evidenceNotary } : {}),
    observedConnections: (hosts, since) => connections.observed(hosts, since),
    vantages: (id) => vantages.route(id),
    dnsAnswers: (hosts, since) => dnsAnswers.answers(hosts, since),
    ...(await profilesForWorker({ nc: nats.nc, config })),
  });
  return async () => {
    await feeder.stop();
    await worker.stop();
    governor.stop();
    await browsers.close();
    hostLoad.stop();
    await proxy.close();
    await vantages.close();
  };
}
