import type { Config } from '../config/config.js';
import type { JobQueueState } from '../ledger/job-backlog.js';

/**
 * The operators' capacity view (docs/capture.md, Capacity): how many capture jobs wait and how many workers hold,
 * against the bound past which admission answers 503 (CAPTURE_BACKLOG_MAX: admission compares the job stream's
 * depth, which is waiting plus in flight), and the most captures a worker of this process runs at once.
 */

export type Capacity = ReturnType<typeof createCapacity>;

export interface CapacityDeps {
  config: Pick<Config, 'CAPTURE_BACKLOG_MAX' | 'WORKER_CONCURRENCY'>;
  /** The job queue's consumer, read now (src/ledger/job-backlog.ts). */
  jobQueue: () => Promise<JobQueueState>;
  /** Whether this process runs the worker role: other processes' WORKER_CONCURRENCY is not known here. */
  runsWorker: boolean;
}

export function createCapacity(deps: CapacityDeps) {
  return {
    async read() {
      const queue = await deps.jobQueue();
      return {
        jobBacklog: queue.waiting,
        inFlight: queue.inFlight,
        backlogMax: deps.config.CAPTURE_BACKLOG_MAX,
        workerConcurrency: deps.runsWorker ? deps.config.WORKER_CONCURRENCY : null,
      };
    },
  };
}
