import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { createTenantActors } from '../src/actors/tenant-actors.js';
import { keyHashOf } from '../src/domain/tenant-keys.js';
import { connectNats } from '../src/infra/nats.js';
import { createPool, LIVE_SCHEMA } from '../src/infra/postgres.js';
import { createEventStore } from '../src/ledger/event-store.js';
import { startInfra } from '../test/support/harness.js';
import type { BenchLine } from './registry.js';
import { type ApiMemory, startApiProcess } from './support/api-process.js';
import { envCount, mb, pool, round, sleep } from './support/bench-kit.js';

const ADMIN = 'bench-admin-key-0123456789';
const setupCtx = { correlationId: 'bench', causedBy: { kind: 'admin' as const } };

/**
 * POST /v1/captures per second and p99 with autocannon against one API process
 * (ROLES=api,projector, no worker) for 1, 100 and 10,000 distinct tenants, keys rotated across requests;
 * baseline: GET /health of the same process in the same run. Then the API process's heap and RSS after the
 * 10,000-tenant run, where every request hydrates a tenant actor the process has not seen.
 *
 * Tenants are set up from this process through their tenant actors (key.created + quota override, the same
 * events as POST /v1/admin/keys and PUT /v1/admin/tenants/{id}/config), so the API process meets them cold.
 * BENCH_SUB_CONNECTIONS (default 50), BENCH_SUB_REQUESTS (default 1000; per tenant set, at least one per
 * tenant), BENCH_SUB_TENANTS (default 1,100,10000).
 */
export async function submissionsBench(): Promise<BenchLine[]> {
  const connections = envCount('BENCH_SUB_CONNECTIONS', 50);
  const requests = envCount('BENCH_SUB_REQUESTS', 1000);
  const tenantSets = (process.env.BENCH_SUB_TENANTS ?? '1,100,10000')
    .split(',')
    .map((s) => envCountOf('BENCH_SUB_TENANTS', s));
  const infra = await startInfra();
  const databaseUrl = await infra.freshDatabase();
  const api = await startApiProcess({
    ROLES: 'api,projector',
    NATS_URL: infra.nats.url,
    DATABASE_URL: databaseUrl,
    DATA_DIR: infra.dir,
    ADMIN_KEY: ADMIN,
    ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    SIGNING_KEY: 'none',
    TSA_URL: 'none',
    CAPTURE_BACKLOG_MAX: '10000000',
    RATE_LIMIT_IP_PER_MIN: '10000000',
    RATE_LIMIT_TENANT_PER_MIN: '10000000',
  });
  const nats = await connectNats(infra.nats.url, 'bench-setup');
  const actors = createTenantActors(createEventStore(nats.js, nats.jsm));
  const pg = createPool(databaseUrl, LIVE_SCHEMA, 4);
  const lines: BenchLine[] = [];
  try {
    const url = new URL(api.baseUrl);
    const health = await cannon({ url: `${api.baseUrl}/health`, connections, amount: Math.max(requests, 5000) });
    lines.push({
      figure: 'baseline GET /health',
      connections,
      requests: health.total,
      perSec: health.perSec,
      p50Ms: health.p50,
      p99Ms: health.p99,
      non2xx: health.non2xx,
    });

    let expectedKeys = 0;
    const memBefore = await api.memory();
    let memAfter: ApiMemory | undefined;
    let last = 0;
    const p99ByTenants = new Map<number, number>();
    for (const tenants of tenantSets) {
      const setupStarted = performance.now();
      const keys = await createTenants(actors, `s${tenants}`, tenants);
      expectedKeys += tenants;
      await waitForKeys(pg, expectedKeys);
      const setupSec = (performance.now() - setupStarted) / 1000;
      let i = 0;
      const amount = Math.max(requests, tenants);
      const r = await cannon({
        url: api.baseUrl,
        connections,
        amount,
        requests: [
          {
            method: 'POST',
            path: '/v1/captures',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ url: `http://${url.hostname}:9/bench` }),
            setupRequest: (req: { headers: Record<string, string> }) => ({
              ...req,
              headers: { ...req.headers, authorization: `Bearer ${keys[i++ % keys.length]}` },
            }),
          },
        ],
      });
      lines.push({
        figure: `POST /v1/captures, ${tenants} tenant${tenants === 1 ? '' : 's'}`,
        tenants,
        connections,
        requests: r.total,
        perSec: r.perSec,
        p50Ms: r.p50,
        p99Ms: r.p99,
        non2xx: r.non2xx,
        statusCodes: r.statusCodes,
        ratio: round(r.perSec / health.perSec, 3),
        ratioIs: 'submissions/s ÷ /health req/s',
        p99VsHealth: round(r.p99 / Math.max(health.p99, 1), 1),
        setupSec: round(setupSec, 1),
      });
      last = tenants;
      p99ByTenants.set(tenants, r.p99);
      memAfter = await api.memory();
    }
    const fewest = Math.min(...p99ByTenants.keys());
    if (p99ByTenants.size > 1) {
      // Cost must not grow with the number of tenants a process meets cold.
      lines.push({
        figure: `POST /v1/captures p99, ${last} tenants vs ${fewest}`,
        ratio: round(p99ByTenants.get(last)! / Math.max(p99ByTenants.get(fewest)!, 1), 2),
        ratioIs: `p99 at ${last} tenants ÷ p99 at ${fewest} tenant${fewest === 1 ? '' : 's'}, same run (goal ≤ 2)`,
      });
    }
    if (memAfter) {
      const fig = (m: ApiMemory) => ({
        rssMB: mb(m.rss),
        heapUsedMB: mb(m.heapUsed),
        heapUsedAfterGcMB: mb(m.heapUsedAfterGc),
        heapTotalMB: mb(m.heapTotal),
      });
      // The usage recorder flushes every 5 s per tenant: measure again once that has passed.
      await sleep(6000);
      const settled = await api.memory();
      lines.push({
        figure: `API process memory after the ${last}-tenant run`,
        before: fig(memBefore),
        after: fig(memAfter),
        afterPlus6s: fig(settled),
        ratio: round(memAfter.heapUsedAfterGc / memBefore.heapUsedAfterGc, 2),
        ratioIs: 'retained heap after ÷ before the runs (after full GC)',
        retainedPerTenantKB: round(
          (settled.heapUsedAfterGc - memBefore.heapUsedAfterGc) / 1024 / tenantSets.reduce((a, b) => a + b, 0),
          2,
        ),
        actors: settled.actors,
      });
    }
    return lines;
  } finally {
    actors.close();
    await pg.end();
    await nats.nc.close();
    await api.stop();
    await infra.stop();
  }
}

function envCountOf(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must list positive whole numbers, got '${raw}'`);
  return n;
}

/** `count` tenants `<prefix>-<i>`, each with a capture key and a quota no run can reach; returns the raw keys. */
async function createTenants(
  actors: ReturnType<typeof createTenantActors>,
  prefix: string,
  count: number,
): Promise<string[]> {
  const keys = Array.from({ length: count }, () => `svc_live_${randomBytes(32).toString('hex')}`);
  await pool(count, 256, async (i) => {
    await Promise.all([
      actors.execute(
        `${prefix}-${i}`,
        { type: 'CreateKey', data: { keyHash: keyHashOf(keys[i]!), scopes: ['capture'], name: 'bench' } },
        setupCtx,
      ),
      actors.execute(
        `${prefix}-${i}`,
        { type: 'SetQuotaOverrides', data: { capturesPerMonth: 1_000_000_000, storageBytes: 1_000_000_000_000 } },
        setupCtx,
      ),
    ]);
  });
  return keys;
}

async function waitForKeys(pg: ReturnType<typeof createPool>, expected: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const r = await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
    if (r.rows[0]!.n >= expected) return;
    if (Date.now() > deadline) throw new Error(`projection has ${r.rows[0]!.n} of ${expected} keys after 120 s`);
    await sleep(100);
  }
}

interface CannonResult {
  total: number;
  perSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  statusCodes: Record<string, number>;
}

async function cannon(opts: Record<string, unknown>): Promise<CannonResult> {
  const r = await autocannon(opts);
  const statusCodes: Record<string, number> = {};
  for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = (s as { count: number }).count;
  if (r.errors) statusCodes.errors = r.errors;
  return {
    total: r.requests.total,
    // Answers with 2xx per second: a fast 429 or 503 is not a submission.
    perSec: Math.round((r['2xx'] ?? 0) / r.duration),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    statusCodes,
  };
}
