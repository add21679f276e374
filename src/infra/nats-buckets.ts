import { jetstream, jetstreamManager, JetStreamApiCodes, JetStreamApiError, StorageType } from '@nats-io/jetstream';
import { type KV, type KvOptions, Kvm } from '@nats-io/kv';
import { type ObjectStore, Objm } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import { ensureStreamReplicas } from '../ledger/streams.js';

/**
 * KV and object-store buckets with NATS_REPLICAS replicas (DESIGN decision 10): created when absent, and
 * brought to the configured replicas when they exist from an earlier start with another setting.
 */
async function streamExists(nc: NatsConnection, stream: string): Promise<boolean> {
  try {
    await (await jetstreamManager(nc)).streams.info(stream);
    return true;
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return false;
    throw err;
  }
}

/** `timeoutMs`: how long one read or write of the bucket may wait (default: the client's). */
export async function openKvBucket(nc: NatsConnection, name: string, opts: Partial<KvOptions>, replicas: number, timeoutMs?: number): Promise<KV> {
  const kvm = new Kvm(timeoutMs === undefined ? nc : jetstream(nc, { timeout: timeoutMs }));
  if (await streamExists(nc, `KV_${name}`)) {
    await ensureStreamReplicas(await jetstreamManager(nc), `KV_${name}`, replicas);
    return kvm.open(name);
  }
  return kvm.create(name, { ...opts, replicas });
}

export async function openObjectBucket(nc: NatsConnection, name: string, replicas: number): Promise<ObjectStore> {
  const objm = new Objm(nc);
  if (await streamExists(nc, `OBJ_${name}`)) {
    await ensureStreamReplicas(await jetstreamManager(nc), `OBJ_${name}`, replicas);
    return objm.open(name);
  }
  return objm.create(name, { storage: StorageType.File, replicas });
}
