import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { TenantActors } from '../actors/tenant-actors.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../domain/clock.js';
import type { EventStore } from '../ledger/event-store.js';
import type { ProjectionWaiter } from '../projector/projection-waiter.js';

/** What the API's plugins are given: one of each shared thing (STYLE: one clock, one config …). */
export interface ApiContext {
  config: Config;
  log: Logger;
  clock: Clock;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  store: EventStore;
  tenants: TenantActors;
  pool: pg.Pool;
  waiter: ProjectionWaiter;
}
