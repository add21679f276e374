import type { NatsConnection } from '@nats-io/transport-node';
import type pg from 'pg';

/** What a role needs to do its work: its NATS connection and, for roles that use it, Postgres. */
export interface Readiness {
  ok: boolean;
  checks: { nats: boolean; postgres?: boolean };
}

export function createReadiness(nc: NatsConnection, pool: pg.Pool | null): () => Promise<Readiness> {
  return async () => {
    const nats = !nc.isClosed() && nc.getServer() !== '';
    if (!pool) return { ok: nats, checks: { nats } };
    const postgres = await pool
      .query('SELECT 1')
      .then(() => true)
      .catch(() => false);
    return { ok: nats && postgres, checks: { nats, postgres } };
  };
}
