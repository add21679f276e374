import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics (docs/architecture.md, Observability), one registry per process, served at GET /metrics. Gauges that need a
 * look-up (queue depth, projection lag) are computed when scraped by the probes the server registers.
 */
export const registry = new Registry();
/**
 * Node's event-loop delay (the `…eventloop_lag_…` series) is sampled by a timer that wakes the process every
 * EVENT_LOOP_SAMPLE_MS, idle or not: at prom-client's default of 10 ms those wakeups were most of an idle
 * process's CPU. Lags that matter here are hundreds of milliseconds.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;
collectDefaultMetrics({
  register: registry,
  prefix: 'capture_ledger_',
  eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
});

export const httpRequests = new Counter({
  name: 'capture_ledger_http_requests_total',
  help: 'HTTP requests by method, route and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'capture_ledger_http_request_duration_seconds',
  help: 'HTTP request latency by method and route',
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const captureDuration = new Histogram({
  name: 'capture_ledger_capture_duration_seconds',
  help: 'Browser capture duration by outcome (full, partial, failed, retry)',
  labelNames: ['outcome'] as const,
  buckets: [0.5, 1, 2, 3, 5, 8, 13, 21, 34, 60],
  registers: [registry],
});

export const workerConcurrencyLimit = new Gauge({
  name: 'capture_ledger_worker_concurrency_limit',
  help: 'Captures this worker runs at once, as adapted to the host (docs/architecture.md, Capture under load)',
  registers: [registry],
});

export const hostStarvation = new Gauge({
  name: 'capture_ledger_host_starvation_ratio',
  help: 'Fraction of recent time the busiest capture process waited for a CPU (about 10 s average)',
  registers: [registry],
});

export const captureRetries = new Counter({
  name: 'capture_ledger_capture_retries_total',
  help: 'Capture attempts that failed and were tried again, by whose failure (page, service)',
  labelNames: ['owner'] as const,
  registers: [registry],
});

export const webhookDeliveries = new Counter({
  name: 'capture_ledger_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome (delivered, failed, dead_lettered)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const queueDepth = new Gauge({
  name: 'capture_ledger_queue_depth',
  help: 'Messages waiting in a work queue (JOBS, DELIVERIES)',
  labelNames: ['queue'] as const,
  registers: [registry],
});

export const projectionLag = new Gauge({
  name: 'capture_ledger_projection_lag_events',
  help: 'LEDGER commits not yet applied to the Postgres projection',
  registers: [registry],
});

export const storageRequests = new Counter({
  name: 'capture_ledger_storage_requests_total',
  help: 'Requests to object storage (S3) by operation and outcome (ok, not_found, refused, unavailable, error)',
  labelNames: ['operation', 'outcome'] as const,
  registers: [registry],
});

export const storageDuration = new Histogram({
  name: 'capture_ledger_storage_request_duration_seconds',
  help: "Object storage (S3) request latency by operation, the client's own retries included",
  labelNames: ['operation'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const storagePendingWrites = new Gauge({
  name: 'capture_ledger_storage_pending_writes',
  help: 'Writes to object storage (S3) under way, those waiting through an outage included',
  registers: [registry],
});

export const storageUp = new Gauge({
  name: 'capture_ledger_storage_up',
  help: 'Whether object storage (S3) answered the last request or probe (1) or not (0)',
  registers: [registry],
});

/** Probes refreshed before each scrape. */
const probes: Array<() => Promise<void>> = [];
export const addScrapeProbe = (probe: () => Promise<void>) => void probes.push(probe);

export async function scrape(): Promise<string> {
  await Promise.allSettled(probes.map((p) => p()));
  return registry.metrics();
}

export const witnessCosignings = new Counter({
  name: 'capture_ledger_witness_cosignings_total',
  help: 'Checkpoints a sequencer asked a witness to cosign, by witness and outcome (cosigned, refused, unavailable, invalid, ahead: it already cosigned a larger one)',
  labelNames: ['witness', 'outcome'] as const,
  registers: [registry],
});

export const checkpointCosignatures = new Gauge({
  name: 'capture_ledger_checkpoint_cosignatures',
  help: 'Witness cosignatures on the last checkpoint this sequencer signed (below LOG_WITNESS_QUORUM: a warning is logged)',
  registers: [registry],
});
