import {
  DiscardPolicy,
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  StorageType,
} from '@nats-io/jetstream';
import { type KV, type KvOptions, Kvm } from '@nats-io/kv';
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
export async function openKvBucket(
  nc: NatsConnection,
  name: string,
  opts: Partial<KvOptions>,
  replicas: number,
  timeoutMs?: number,
): Promise<KV> {
  const kvm = new Kvm(timeoutMs === undefined ? nc : jetstream(nc, { timeout: timeoutMs }));
  if (await streamExists(nc, `KV_${name}`)) {
    await ensureStreamReplicas(await jetstreamManager(nc), `KV_${name}`, replicas);
    return kvm.open(name);
  }
  return kvm.create(name, { ...opts, replicas });
}

/**
 * The object store's stream refuses purges, message deletes and so rollups: its objects are write-once
 * (src/storage/jetstream-artifact-store.ts), and a filtered purge of a replicated stream could be replayed as a
 * full one by nats-server before 2.9.21 (nats-server #4196). A regression that purges — the nats.js object store's own put
 * rolls up its meta entry and purges old chunks — fails loudly instead of silently wiping evidence. Set at
 * creation, and on an existing stream by whoever may update it (provisioning, the embedded single node); a role
 * finds it set. Otherwise the stream is the nats.js object store's, so objects either wrote read the same.
 */
const WRITE_ONCE = { deny_delete: true, deny_purge: true, allow_rollup_hdrs: false } as const;
const STREAM_NAME_IN_USE = 10058;

export async function openObjectBucket(nc: NatsConnection, name: string, replicas: number): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const stream = `OBJ_${name}`;
  if (!(await streamExists(nc, stream))) {
    try {
      await jsm.streams.add({
        name: stream,
        subjects: [`$O.${name}.C.>`, `$O.${name}.M.>`],
        storage: StorageType.File,
        discard: DiscardPolicy.New,
        allow_direct: true,
        num_replicas: replicas,
        ...WRITE_ONCE,
      });
      return;
    } catch (err) {
      // another process created it between our check and add
      if (!(err instanceof JetStreamApiError && err.code === STREAM_NAME_IN_USE)) throw err;
    }
  }
  await ensureStreamReplicas(jsm, stream, replicas);
  const { config } = await jsm.streams.info(stream);
  if (!config.deny_delete || !config.deny_purge || config.allow_rollup_hdrs)
    await jsm.streams.update(stream, { ...config, ...WRITE_ONCE });
}
