import type pg from 'pg';

/**
 * Fills the `captures` projection with `n` summary rows of one tenant straight in SQL (a million in about half a
 * minute): a URL among 1,000 per tenant, statuses pending/complete/failed in turn, one a second from 2026-01-01.
 * Call `countCaptures` after the last fill so the list's totals (capture_counts) match.
 */
export async function fillCaptures(pool: pg.Pool, tenant: string, n: number): Promise<void> {
  await pool.query(
    `INSERT INTO captures (capture_id, tenant_id, url, status, period, created_at, source)
     SELECT 'cap_' || md5($1 || g::text), $1, 'https://example.org/' || (g % 1000) || '/page', (ARRAY['pending','complete','failed'])[1 + g % 3],
            '2026-11', timestamptz '2026-01-01' + (g || ' seconds')::interval, 'single'
     FROM generate_series(1, $2::int) g`,
    [tenant, n],
  );
}

/** capture_counts for every tenant filled, then fresh planner statistics. */
export async function countCaptures(pool: pg.Pool): Promise<void> {
  await pool.query('INSERT INTO capture_counts SELECT tenant_id, status, count(*) FROM captures GROUP BY 1, 2');
  await pool.query('VACUUM ANALYZE captures');
}
