import type { JetStreamManager, StreamInfo } from '@nats-io/jetstream';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { BUCKETS, STREAMS, type StreamDeclaration, SUBJECTS } from '../infra/topology.js';

/** Stream and subject names, from the topology (src/infra/topology.ts). */
export const LEDGER_STREAM = STREAMS.ledger.name;
export const JOBS_STREAM = STREAMS.jobs.name;
export const DELIVERIES_STREAM = STREAMS.deliveries.name;
export const ARTIFACT_BUCKET = BUCKETS.artifacts.name;

/**
 * How long one pull request of a consumer lives. Its idle heartbeat is half of it, and two missed heartbeats
 * make the client renew the pull, so this bounds how long a reader stays stalled after the node serving it is
 * lost (the client default of 30 s stalled the projector for half a minute after a node was killed).
 */
export const PULL_EXPIRES_MS = 5_000;

export const tenantSubject = (tenantId: string): string => `ledger.tenant.${tenantId}`;
export const SYSTEM_SUBJECT = SUBJECTS.systemEvents.subject;
export const SYSTEM_TENANT = '$system';
export const CAPTURE_JOB_SUBJECT = SUBJECTS.captureJobs.subject;
export const WEBHOOK_JOB_SUBJECT = SUBJECTS.webhookJobs.subject;

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
export async function ensureStreamReplicas(
  jsm: JetStreamManager,
  stream: string,
  replicas: number,
  known?: StreamInfo,
): Promise<void> {
  const info = known ?? (await jsm.streams.info(stream));
  if ((info.config.num_replicas ?? 1) === replicas) return;
  try {
    await jsm.streams.update(stream, { ...info.config, num_replicas: replicas });
  } catch (err) {
    throw replicasError(stream, replicas, err);
  }
}

/** Create a stream of the topology when absent and bring its replicas to `replicas` (NATS_REPLICAS). Safe from every process. */
export async function ensureStream(jsm: JetStreamManager, stream: StreamDeclaration, replicas = 1): Promise<void> {
  let info: StreamInfo | undefined;
  try {
    info = await jsm.streams.info(stream.name);
  } catch (err) {
    if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
    try {
      await jsm.streams.add({ ...stream.config, name: stream.name, num_replicas: replicas });
      return;
    } catch (addErr) {
      // another process created it between our info and add
      if (!(addErr instanceof JetStreamApiError && addErr.code === STREAM_NAME_IN_USE)) {
        throw replicasError(stream.name, replicas, addErr);
      }
    }
  }
  await ensureStreamReplicas(jsm, stream.name, replicas, info);
}

/** Create every stream of the topology when absent and bring their replicas to `replicas`. */
export async function ensureStreams(jsm: JetStreamManager, replicas = 1): Promise<void> {
  // Independent of each other: asked at once, so a starting process waits for one round trip, not one per stream.
  await Promise.all(Object.values(STREAMS).map((stream) => ensureStream(jsm, stream, replicas)));
}
