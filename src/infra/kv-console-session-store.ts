import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { SessionRecord, SessionStore } from '../application/console-sessions.js';
import { openKvBucket } from './nats-buckets.js';
import { BUCKETS } from './topology.js';

/**
 * Console sessions in the `console-sessions` KV bucket (src/infra/topology.ts), so every API process sees a
 * session another one opened or ended. An entry ends by a delete marker, never a purge (nats-server #4196); the
 * bucket's TTL drops entries nobody wrote for the longest session lifetime.
 */
const KV_TIMEOUT_MS = 3000;

export async function openKvSessionStore(nc: NatsConnection, replicas: number): Promise<SessionStore> {
  const b = BUCKETS.consoleSessions;
  const kv = await openKvBucket(nc, b.name, b.options, replicas, KV_TIMEOUT_MS);
  return {
    async get(key) {
      const e = await kv.get(key);
      if (e?.operation !== 'PUT' || e.value.length === 0) return null;
      return { record: e.json() as SessionRecord, revision: e.revision };
    },
    async create(key, record) {
      await kv.put(key, JSON.stringify(record));
    },
    async update(key, record, revision) {
      try {
        await kv.update(key, JSON.stringify(record), revision);
        return true;
      } catch (err) {
        if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence) return false;
        if (err instanceof Error && /wrong last sequence/i.test(err.message)) return false;
        throw err;
      }
    },
    async delete(key) {
      await kv.delete(key);
    },
  };
}
