import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { ActorRuntime } from '../actors/actor-runtime.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../domain/clock.js';
import type { TenantEvent } from '../domain/events.js';
import type { TenantState } from '../domain/tenant/index.js';
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
  tenants: ActorRuntime<TenantState, TenantEvent>;
  pool: pg.Pool;
  waiter: ProjectionWaiter;
}
