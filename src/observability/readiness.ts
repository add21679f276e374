import type { NatsConnection } from '@nats-io/transport-node';
import type pg from 'pg';

/** What a role needs to do its work: its NATS connection and, for roles that use it, Postgres. */
export interface Readiness {
  ok: boolean;
  checks: { nats: boolean; postgres?: boolean };
}

/** A round trip to the nats-server must come back within this long (a reconnecting client never answers). */
const NATS_ANSWER_MS = 2_000;

/** The nats-server answers a ping now: a connection that is reconnecting still names its server, but is down. */
async function natsAnswers(nc: NatsConnection): Promise<boolean> {
  if (nc.isClosed()) return false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), NATS_ANSWER_MS)));
  const answered = nc.rtt().then(
    () => true,
    () => false,
  );
  return Promise.race([answered, late]).finally(() => clearTimeout(timer));
}

export function createReadiness(nc: NatsConnection, pool: pg.Pool | null): () => Promise<Readiness> {
  return async () => {
    const natsCheck = natsAnswers(nc);
    if (!pool) {
      const nats = await natsCheck;
      return { ok: nats, checks: { nats } };
    }
    const [nats, postgres] = await Promise.all([
      natsCheck,
      pool
        .query('SELECT 1')
        .then(() => true)
        .catch(() => false),
    ]);
    return { ok: nats && postgres, checks: { nats, postgres } };
  };
}
