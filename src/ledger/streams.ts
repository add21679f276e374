import type { JetStreamManager, StreamConfig } from '@nats-io/jetstream';
import { DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';

/** Stream and subject names (see docs/architecture.md). */
export const LEDGER_STREAM = 'LEDGER';
export const JOBS_STREAM = 'JOBS';
export const DELIVERIES_STREAM = 'DELIVERIES';
export const ARTIFACT_BUCKET = 'artifacts';

/**
 * How long one pull request of a consumer lives. Its idle heartbeat is half of it, and two missed heartbeats
 * make the client renew the pull, so this bounds how long a reader stays stalled after the node serving it is
 * lost (the client default of 30 s stalled the projector for half a minute after a node was killed).
 */
export const PULL_EXPIRES_MS = 5_000;

export const tenantSubject = (tenantId: string): string => `ledger.tenant.${tenantId}`;
export const SYSTEM_SUBJECT = 'ledger.system';
export const SYSTEM_TENANT = '$system';
export const CAPTURE_JOB_SUBJECT = 'jobs.capture';
export const WEBHOOK_JOB_SUBJECT = 'jobs.webhook';

const definitions: Array<Partial<StreamConfig> & { name: string; subjects: string[] }> = [
  {
    // The truth: immutable, never purged (decision 1).
    name: LEDGER_STREAM,
    subjects: ['ledger.>'],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.New,
    deny_delete: true,
    deny_purge: true,
    allow_direct: true,
    duplicate_window: nanos(2 * 60_000),
  },
  {
    // Work queue of capture jobs, filled from capture.submitted events by the job feeder (decision 3).
    name: JOBS_STREAM,
    subjects: [CAPTURE_JOB_SUBJECT],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: nanos(10 * 60_000),
  },
  {
    // Work queue of webhook deliveries, filled from capture outcome events by the dispatcher.
    name: DELIVERIES_STREAM,
    subjects: [WEBHOOK_JOB_SUBJECT],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: nanos(10 * 60_000),
  },
];

/** NATS_REPLICAS could not be honoured: the cluster is smaller than asked, or there is no cluster. */
export class ReplicasError extends Error {
  override name = 'ReplicasError';
}

const NO_SUITABLE_PEERS = 10005;
const REPLICAS_NOT_SUPPORTED = 10074;
const STREAM_NAME_IN_USE = 10058;

function replicasError(stream: string, replicas: number, err: unknown): Error {
  if (err instanceof JetStreamApiError && (err.code === NO_SUITABLE_PEERS || err.code === REPLICAS_NOT_SUPPORTED)) {
    return new ReplicasError(
      `NATS_REPLICAS=${replicas} cannot be placed for ${stream}: ${err.message}. Set NATS_REPLICAS to at most the number of JetStream servers in the cluster.`,
    );
  }
  return err as Error;
}

/**
 * Give an existing stream (also a KV bucket's or object store's, `KV_<name>` / `OBJ_<name>`) `replicas`
 * replicas; NATS moves the data to the new peers itself. Safe to call from every process at every start.
 */
export async function ensureStreamReplicas(jsm: JetStreamManager, stream: string, replicas: number): Promise<void> {
  const info = await jsm.streams.info(stream);
  if ((info.config.num_replicas ?? 1) === replicas) return;
  try {
    await jsm.streams.update(stream, { ...info.config, num_replicas: replicas });
  } catch (err) {
    throw replicasError(stream, replicas, err);
  }
}

/** Create the streams when absent and bring their replicas to `replicas` (NATS_REPLICAS). */
export async function ensureStreams(jsm: JetStreamManager, replicas = 1): Promise<void> {
  for (const def of definitions) {
    try {
      await jsm.streams.info(def.name);
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
      try {
        await jsm.streams.add({ ...def, num_replicas: replicas });
        continue;
      } catch (addErr) {
        // another process created it between our info and add
        if (!(addErr instanceof JetStreamApiError && addErr.code === STREAM_NAME_IN_USE)) {
          throw replicasError(def.name, replicas, addErr);
        }
      }
    }
    await ensureStreamReplicas(jsm, def.name, replicas);
  }
}
