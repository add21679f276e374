import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ensureStreams, ReplicasError } from '../ledger/streams.js';
import type { Logger } from 'pino';
import { natsInboxPrefix } from './nats-permissions.js';
import { reportNatsServerVersion } from './nats-server-version.js';
import { isNatsUnavailable } from './nats-unavailable.js';

export interface NatsHandles {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}

export interface ConnectOptions {
  /** NATS_REPLICAS: replicas of every stream, KV and object-store bucket (DESIGN decision 10). */
  replicas?: number;
  /** NATS_USER / NATS_PASSWORD. */
  user?: string | undefined;
  pass?: string | undefined;
  /** Where the server's version, and a warning for each known data-loss bug it has, are logged (nats-server-version.ts). */
  log?: Logger;
}

/** Connect, and make sure the streams exist with the configured replicas (idempotent). */
export async function connectNats(url: string, name: string, opts: ConnectOptions = {}): Promise<NatsHandles> {
  const replicas = opts.replicas ?? 1;
  // A user's replies come to its own inbox prefix, the only inboxes its permissions let it subscribe to.
  const credentials = opts.user
    ? { user: opts.user, pass: opts.pass ?? '', inboxPrefix: natsInboxPrefix(opts.user) }
    : {};
  // noAsyncTraces: nats.js otherwise builds an Error (a stack trace) for every request in case it fails; every
  // status poll makes one (its rate-limit take), and the errors we log name the subject anyway.
  const nc = await connect({
    servers: url.split(',').map((s) => s.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    noAsyncTraces: true,
    ...credentials,
  });
  try {
    if (replicas > 1 && !nc.info?.cluster) {
      throw new ReplicasError(
        `NATS_REPLICAS=${replicas} needs a NATS cluster, but ${nc.getServer()} runs alone; set NATS_REPLICAS=1 or point NATS_URL at a cluster.`,
      );
    }
    if (opts.log) reportNatsServerVersion(opts.log, nc.info, replicas);
    const jsm = await reachJetStream(nc);
    await ensureStreams(jsm, replicas);
    return { nc, js: jetstream(nc, { timeout: 10_000 }), jsm };
  } catch (err) {
    await nc.close().catch(() => undefined);
    throw err;
  }
}

/** How long a starting process waits for JetStream to answer (a cluster electing its meta leader, a busy host). */
const JETSTREAM_WAIT_MS = 60_000;
const JETSTREAM_TRY_MS = 10_000;

/**
 * The JetStream manager, once JetStream answers: a cluster that is still electing its meta leader, or a host
 * too busy to answer within one try, makes a starting process wait (bounded), not exit.
 */
async function reachJetStream(nc: NatsConnection): Promise<JetStreamManager> {
  const deadline = Date.now() + JETSTREAM_WAIT_MS;
  for (;;) {
    try {
      return await jetstreamManager(nc, { timeout: JETSTREAM_TRY_MS });
    } catch (err) {
      if (Date.now() + JETSTREAM_TRY_MS > deadline || !isNatsUnavailable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
