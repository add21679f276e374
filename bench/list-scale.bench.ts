import { createPool } from '../src/infra/postgres.js';
import { migrate } from '../projections/migrate.js';
import { startInfra } from '../test/support/harness.js';
import type { BenchLine } from './registry.js';
import { countCaptures, fillCaptures } from './support/capture-rows.js';

/**
 * The capture list at a million captures. Fills the `captures` projection with BENCH_LIST_ROWS
 * rows (default 1,000,000) for one tenant plus noise, then times the list endpoint's queries (page + total)
 * for the common shapes; baseline: the same page shape on a tenant with 1,000 captures.
 */
export async function listScaleBench(): Promise<BenchLine[]> {
  const rows = Number(process.env.BENCH_LIST_ROWS ?? 1_000_000);
  const infra = await startInfra();
  const pool = createPool(await infra.freshDatabase(), 'projection');
  try {
    await migrate(pool, 'projection');
    await fillCaptures(pool, 'big', rows);
    await fillCaptures(pool, 'small', 1000);
    await countCaptures(pool);
    // The same queries as GET /v1/captures (src/api/routes/captures.ts): a page, and the total, which for
    // no filter or a status filter comes from capture_counts.
    const shapes: Record<string, { extra: string; status?: string }> = {
      newest: { extra: '' },
      status: { extra: "AND status = 'complete'", status: 'complete' },
      urlPrefix: { extra: "AND url LIKE 'https://example.org/42' || '%'" },
      range: { extra: "AND created_at >= '2026-01-05' AND created_at < '2026-01-06'" },
    };
    const time = async (tenant: string, shape: { extra: string; status?: string }, offset = 0) => {
      const countsOnly = shape.extra === '' || shape.status !== undefined;
      const t0 = performance.now();
      for (let i = 0; i < 5; i++) {
        await pool.query(
          `SELECT * FROM captures WHERE tenant_id = $1 ${shape.extra} ORDER BY created_at DESC, capture_id DESC LIMIT 20 OFFSET ${offset}`,
          [tenant],
        );
        if (countsOnly) {
          await pool.query(
            'SELECT COALESCE(sum(n), 0) FROM capture_counts WHERE tenant_id = $1 AND ($2::text IS NULL OR status = $2)',
            [tenant, shape.status ?? null],
          );
        } else {
          await pool.query(`SELECT count(*) FROM captures WHERE tenant_id = $1 ${shape.extra}`, [tenant]);
        }
      }
      return (performance.now() - t0) / 5;
    };
    const out: BenchLine[] = [];
    for (const [shape, def] of Object.entries(shapes)) {
      const small = await time('small', def);
      const big = await time('big', def);
      out.push({
        shape,
        rows,
        pageMsAtScale: Number(big.toFixed(1)),
        pageMsAt1000: Number(small.toFixed(1)),
        ratio: Number((big / small).toFixed(1)),
      });
    }
    return out;
  } finally {
    await pool.end();
    await infra.stop();
  }
}
