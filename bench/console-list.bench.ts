import { ADMIN_KEY, startTestServer } from '../test/support/test-server.js';
import { startInfra } from '../test/support/harness.js';
import { createPool } from '../src/infra/postgres.js';
import { migrate } from '../projections/migrate.js';
import type { BenchLine } from './registry.js';
import { envCount, percentile, round, timeMs } from './support/bench-kit.js';
import { countCaptures, fillCaptures } from './support/capture-rows.js';

/**
 * The console's captures list within 200 ms of server time with 1,000,000 captures in the tenant's
 * history. The console asks `GET /v1/captures` as any client does, so this times that request over loopback
 * against a real service whose projection holds BENCH_LIST_ROWS rows (default 1,000,000) for one tenant, for each
 * view the console offers (newest, a status filter, a URL prefix, a day, oldest first, page 50); baseline: the
 * same requests for a tenant with 1,000 captures in the same database.
 */
export async function consoleListBench(): Promise<BenchLine[]> {
  const rows = envCount('BENCH_LIST_ROWS', 1_000_000);
  const samples = envCount('BENCH_LIST_SAMPLES', 30);
  const infra = await startInfra();
  const databaseUrl = await infra.freshDatabase();
  const fillPool = createPool(databaseUrl, 'projection');
  try {
    await migrate(fillPool, 'projection');
    await fillCaptures(fillPool, 'big', rows);
    await fillCaptures(fillPool, 'small', 1000);
    await countCaptures(fillPool);
  } catch (err) {
    await infra.stop();
    throw err;
  } finally {
    await fillPool.end();
  }
  const s = await startTestServer({ RATE_LIMIT_TENANT_PER_MIN: '100000' }, { infra, databaseUrl });
  try {
    const keyOf = async (tenantId: string) => {
      const r = await s.call('POST', '/v1/admin/keys', {
        token: ADMIN_KEY,
        body: { tenantId, scopes: ['read'], name: 'console list bench' },
      });
      if (r.status !== 201) throw new Error(`key for ${tenantId}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.key as string;
    };
    const keys = { big: await keyOf('big'), small: await keyOf('small') };
    const all = await s.call('GET', '/v1/captures?limit=1', { token: keys.big });
    if (all.body?.pagination?.total !== rows)
      throw new Error(`the service lists ${all.body?.pagination?.total} captures for 'big', not the ${rows} filled`);
    const views: Record<string, string> = {
      newest: '',
      status: 'status=complete',
      urlPrefix: `url=${encodeURIComponent('https://example.org/42')}`,
      day: `created_after=2026-01-05T00:00:00Z&created_before=2026-01-06T00:00:00Z`,
      oldest: 'sort=created_at',
      page50: 'offset=980',
    };
    const time = async (tenant: 'big' | 'small', query: string) => {
      const took: number[] = [];
      for (let i = 0; i < samples; i++) {
        took.push(
          await timeMs(async () => {
            const r = await s.call('GET', `/v1/captures?limit=20${query ? `&${query}` : ''}`, { token: keys[tenant] });
            if (r.status !== 200) throw new Error(`${tenant} ${query}: ${r.status} ${JSON.stringify(r.body)}`);
          }),
        );
      }
      return { p50: percentile(took, 50), p95: percentile(took, 95) };
    };
    const out: BenchLine[] = [];
    for (const [view, query] of Object.entries(views)) {
      const small = await time('small', query);
      const big = await time('big', query);
      out.push({
        view,
        rows,
        p50MsAtScale: round(big.p50),
        p95MsAtScale: round(big.p95),
        p50MsAt1000: round(small.p50),
        goalMs: 200,
        ratio: round(big.p50 / small.p50, 2),
      });
    }
    return out;
  } finally {
    await s.stop();
    await infra.stop();
  }
}
