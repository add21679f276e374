import type pg from 'pg';
import type { Logger } from 'pino';
import type { TenantActors } from '../actors/tenant-actors.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../domain/clock.js';
import type { ProjectionWaiter } from '../projector/projection-waiter.js';

/**
 * What the application services (and the few routes that need no service of their own) are given: one of each
 * shared thing (STYLE: one clock, one config …). No raw NATS handle and no event store: a command goes through
 * the tenant actors and a read through the projections; the one message sent directly (a key revocation to the
 * other API processes) is a function here.
 */
export interface ServiceContext {
  config: Config;
  log: Logger;
  clock: Clock;
  tenants: TenantActors;
  pool: pg.Pool;
  waiter: ProjectionWaiter;
  /** Tells every API process that a key was revoked (their key caches drop it at once). */
  announceRevocation(keyHash: string): void;
}
