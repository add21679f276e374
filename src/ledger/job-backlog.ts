import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream';
import { DURABLES } from '../infra/topology.js';
import { JOBS_STREAM } from './streams.js';

/**
 * How many capture jobs are waiting (the JOBS stream's depth), for admission's capacity 503
 * (src/application/capture-admission.ts). Refreshed at most once a second; a refresh that takes longer than
 * 250 ms (a stream leader being elected after a node was lost) does not hold the request: the last known
 * depth answers, and the refresh lands for the next one.
 */
export function jobBacklog(
  jsm: JetStreamManager,
  opts: { maxAgeMs?: number; waitMs?: number } = {},
): () => Promise<number> {
  const maxAgeMs = opts.maxAgeMs ?? 1000;
  const waitMs = opts.waitMs ?? 250;
  let known = { at: 0, value: 0 };
  let refreshing: Promise<void> | null = null;
  const refresh = () =>
    (refreshing ??= jsm.streams
      .info(JOBS_STREAM)
      .then((info) => void (known = { at: Date.now(), value: info.state.messages }))
      .catch(() => undefined)
      .finally(() => void (refreshing = null)));
  return async () => {
    if (known.at === 0) await refresh();
    else if (Date.now() - known.at > maxAgeMs)
      await Promise.race([refresh(), new Promise((r) => setTimeout(r, waitMs))]);
    return known.value;
  };
}

/** The capture job queue as its consumer sees it (GET /v1/admin/capacity). */
export interface JobQueueState {
  /** Jobs no worker has taken yet. */
  waiting: number;
  /** Jobs a worker holds and has not finished (delivered, not acked). */
  inFlight: number;
}

/**
 * Read now from the workers' durable consumer (num_pending, num_ack_pending); before any worker has created it,
 * every job in the stream is waiting.
 */
export function jobQueueState(jsm: JetStreamManager): () => Promise<JobQueueState> {
  return async () => {
    try {
      const info = await jsm.consumers.info(JOBS_STREAM, DURABLES.captureWorkers.name);
      return { waiting: info.num_pending, inFlight: info.num_ack_pending };
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.ConsumerNotFound)) throw err;
      return { waiting: (await jsm.streams.info(JOBS_STREAM)).state.messages, inFlight: 0 };
    }
  };
}
