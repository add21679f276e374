import type pg from 'pg';
import type { Logger } from 'pino';
import type { TenantActors } from '../actors/tenant-actors.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../domain/clock.js';
import type { ProjectionWaiter } from '../projector/projection-waiter.js';

/**
 * What the API's plugins are given: one of each shared thing (STYLE: one clock, one config …). No raw NATS
 * handle and no event store: a route decides through the tenant actors and reads the projections; the one
 * message it sends itself (a key revocation to the other API processes) is a function here.
 */
export interface ApiContext {
  config: Config;
  log: Logger;
  clock: Clock;
  tenants: TenantActors;
  pool: pg.Pool;
  waiter: ProjectionWaiter;
  /** Tells every API process that a key was revoked (their key caches drop it at once). */
  announceRevocation(keyHash: string): void;
}
