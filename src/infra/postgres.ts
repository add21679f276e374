import pg from 'pg';
import { quoteIdent } from '../../projections/migrate.js';

// Keep bigint counters as JS numbers (they stay far below 2^53) and timestamps as Date.
pg.types.setTypeParser(20, (v) => Number(v));

/** A pool whose connections read and write the projection tables of `schema`. */
export function createPool(databaseUrl: string, schema: string, max = 10): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    options: `-c search_path=${quoteIdent(schema)}`,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection dropped by the server (restart, failover) must not crash the process; the pool
  // replaces it and the next query reports any lasting problem.
  pool.on('error', () => undefined);
  return pool;
}

export const LIVE_SCHEMA = 'projection';
