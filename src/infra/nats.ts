import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ensureStreams } from '../ledger/streams.js';

export interface NatsHandles {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}

/** Connect, and make sure the streams exist (idempotent). */
export async function connectNats(url: string, name: string): Promise<NatsHandles> {
  const nc = await connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm);
  return { nc, js: jetstream(nc, { timeout: 10_000 }), jsm };
}
