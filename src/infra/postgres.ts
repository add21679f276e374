import pg from 'pg';
import { quoteIdent } from '../../projections/migrate.js';

// Keep bigint counters as JS numbers (they stay far below 2^53) and timestamps as Date.
pg.types.setTypeParser(20, (v) => Number(v));

/** A pool whose connections read and write the projection tables of `schema`. */
export function createPool(databaseUrl: string, schema: string, max = 10): pg.Pool {
  return new pg.Pool({
    connectionString: databaseUrl,
    max,
    options: `-c search_path=${quoteIdent(schema)}`,
    idleTimeoutMillis: 30_000,
  });
}

export const LIVE_SCHEMA = 'projection';
