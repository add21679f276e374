import type pg from 'pg';

/**
 * The projector's checkpoint in Postgres: the last ledger sequence its read models hold. Read by every process that
 * waits for a projection or reports the lag, without the read models' code (projector.ts).
 */
export const PROJECTOR_NAME = 'main';

export async function readCheckpoint(pool: pg.Pool | pg.PoolClient): Promise<number> {
  const r = await pool.query<{ seq: number }>('SELECT seq FROM projector_checkpoint WHERE name = $1', [PROJECTOR_NAME]);
  return r.rows[0]?.seq ?? 0;
}
