import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EmbeddedNats, startEmbeddedNats } from '../../src/infra/embedded-nats.js';
import { type EmbeddedPg, startEmbeddedPostgres } from '../../src/infra/embedded-postgres.js';
import { connectNats, type NatsHandles } from '../../src/infra/nats.js';
import { copyPgTemplate } from './pg-template.js';

/**
 * Hermetic infrastructure for tests: a real nats-server (JetStream) and a real Postgres on free ports in a
 * temp dir, torn down afterwards. Parallel-safe: nothing is shared between harnesses.
 */
export interface Infra {
  dir: string;
  nats: EmbeddedNats;
  pg: EmbeddedPg;
  /** A fresh database on the shared cluster. */
  freshDatabase(): Promise<string>;
  stop(): Promise<void>;
}

let dbCounter = 0;

export async function startNatsOnly(): Promise<{ dir: string; nats: EmbeddedNats; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'cl-nats-'));
  const nats = await startEmbeddedNats(join(dir, 'nats'));
  return {
    dir,
    nats,
    async stop() {
      await nats.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A nats-server of its own and two connections to it (`a`, `b`), as two processes of the service hold them. */
export async function startNatsWithTwoClients(): Promise<{ a: NatsHandles; b: NatsHandles; stop(): Promise<void> }> {
  const env = await startNatsOnly();
  const a = await connectNats(env.nats.url, 'a');
  const b = await connectNats(env.nats.url, 'b');
  return {
    a,
    b,
    async stop() {
      await a.nc.close();
      await b.nc.close();
      await env.stop();
    },
  };
}

export async function startInfra(): Promise<Infra> {
  const dir = await mkdtemp(join(tmpdir(), 'cl-infra-'));
  const [nats, pg] = await Promise.all([
    startEmbeddedNats(join(dir, 'nats')),
    copyPgTemplate(join(dir, 'pg')).then(() => startEmbeddedPostgres(join(dir, 'pg'))),
  ]);
  return {
    dir,
    nats,
    pg,
    freshDatabase: () => pg.database(`t${process.pid}_${++dbCounter}`),
    async stop() {
      await Promise.allSettled([nats.stop(), pg.stop()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
