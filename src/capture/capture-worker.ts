import type { JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { ActorRuntime } from '../actors/actor-runtime.js';
import type { Clock } from '../domain/clock.js';
import type { ArtifactRefs, BundleRef, TenantEvent } from '../domain/events.js';
import { decideCompleteCapture, decideFailCapture, type TenantState } from '../domain/tenant/index.js';
import { CAPTURE_JOB_SUBJECT, JOBS_STREAM } from '../ledger/streams.js';
import { captureDuration } from '../observability/metrics.js';
import { runWorkQueue } from '../ledger/work-queue.js';
import { type ArtifactName, type ArtifactStore, artifactObjectName } from './artifact-store.js';
import type { BrowserPool } from './browser-pool.js';
import { CaptureError, type ExplainNetworkError } from './capture-error.js';
import { type CaptureJob, decodeJob } from './capture-job.js';
import type { PageCaptureResult } from './page-capture.js';

/**
 * The browser worker (DESIGN decision 3): takes capture jobs from the JOBS work queue, renders each in the
 * browser pool, stores the artifacts, and appends the outcome through the tenant actor (idempotent, deduped
 * per capture). Redelivery after a crash is normal; a capture fails for good after MAX_ATTEMPTS browser
 * attempts, with `retryable` telling the tenant whether a new capture may succeed.
 */

export const WORKER_CONSUMER = 'capture-workers';
export const MAX_ATTEMPTS = 3;
const ACK_WAIT_MS = 30_000;
const HEARTBEAT_MS = 5_000;

export interface BundleMaker {
  (input: { captureId: string; url: string; createdAt: string; completedAt: string; result: PageCaptureResult }): Promise<
    (BundleRef & { bytes: Uint8Array }) | null
  >;
}

export interface CaptureWorkerDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  pool: pg.Pool;
  tenants: ActorRuntime<TenantState, TenantEvent>;
  artifacts: ArtifactStore;
  browsers: BrowserPool;
  log: Logger;
  clock: Clock;
  concurrency: number;
  timeoutMs: number;
  explainNetworkError?: ExplainNetworkError;
  makeBundle?: BundleMaker;
  /** Delay before a retryable failure is tried again. */
  retryDelayMs?: (attempt: number) => number;
}

export interface CaptureWorker {
  stop(): Promise<void>;
  inFlight(): number;
}

const system = (job: CaptureJob) => ({ correlationId: job.correlationId, causedBy: { kind: 'system' as const, component: 'capture-worker' } });

export async function startCaptureWorker(deps: CaptureWorkerDeps): Promise<CaptureWorker> {
  const retryDelay = deps.retryDelayMs ?? ((attempt: number) => Math.min(30_000, 2000 * attempt));

  async function stillPending(captureId: string): Promise<boolean> {
    const r = await deps.pool.query<{ status: string }>('SELECT status FROM captures WHERE capture_id = $1', [captureId]);
    return !r.rows[0] || r.rows[0].status === 'pending';
  }

  async function storeArtifacts(job: CaptureJob, result: PageCaptureResult, bundle: Uint8Array | null) {
    const files: Array<[ArtifactName, Uint8Array]> = [
      ['screenshot', result.screenshot],
      ['html', Buffer.from(result.html, 'utf8')],
    ];
    if (result.screenshotBefore) files.push(['screenshot-before', result.screenshotBefore]);
    if (result.headers) files.push(['headers', Buffer.from(JSON.stringify(result.headers, null, 2), 'utf8')]);
    if (bundle) files.push(['wacz', bundle]);
    const refs: Partial<ArtifactRefs> = {};
    let bytes = 0;
    for (const [name, data] of files) {
      const objectName = artifactObjectName(job.captureId, name);
      await deps.artifacts.put(objectName, data);
      bytes += data.byteLength;
      const key = name === 'screenshot-before' ? 'screenshotBefore' : name;
      (refs as Record<string, string>)[key] = objectName;
    }
    return { refs: refs as ArtifactRefs, bytes };
  }

  async function handle(msg: JsMsg): Promise<void> {
    const job = decodeJob(msg.data);
    const attempt = msg.info.deliveryCount;
    const log = deps.log.child({ captureId: job.captureId, tenantId: job.tenantId, attempt, correlationId: job.correlationId });
    if (!(await stillPending(job.captureId))) {
      msg.ack();
      return;
    }
    const fail = async (error: string, retryable: boolean) => {
      await deps.tenants.execute(job.tenantId, system(job), (s, now) =>
        decideFailCapture({ captureId: job.captureId, failedAt: now.toISOString(), error, retryable, attempts: Math.min(attempt, MAX_ATTEMPTS) }, s),
      );
      msg.ack();
      log.info({ error, retryable }, 'capture failed');
    };
    if (attempt > MAX_ATTEMPTS) {
      // Redelivered after its attempts were used up by crashes: never leave it pending.
      return fail(`The capture did not finish after ${MAX_ATTEMPTS} attempts (the browser worker stopped while rendering).`, true);
    }
    const heartbeat = setInterval(() => msg.working(), HEARTBEAT_MS);
    const started = performance.now();
    try {
      const result = await deps.browsers.capture(job.url, { timeoutMs: deps.timeoutMs, explainNetworkError: deps.explainNetworkError });
      const completedAt = deps.clock.now().toISOString();
      const bundle =
        result.renderQuality === 'full' && deps.makeBundle
          ? await deps.makeBundle({ captureId: job.captureId, url: job.url, createdAt: job.createdAt, completedAt, result })
          : null;
      const stored = await storeArtifacts(job, result, bundle?.bytes ?? null);
      const { bytes: _bytes, ...bundleRef } = bundle ?? { bytes: null };
      const captureSettings = result.consent ? { version: 1, consent: result.consent } : undefined;
      const outcome = await deps.tenants.execute(job.tenantId, system(job), (s) =>
        decideCompleteCapture(
          {
            captureId: job.captureId,
            completedAt,
            renderQuality: result.renderQuality,
            render: result.render as unknown as Record<string, unknown>,
            artifacts: stored.refs,
            ...(bundle ? { bundle: bundleRef as BundleRef } : {}),
            ...(captureSettings ? { captureSettings } : {}),
            storedBytes: stored.bytes,
            attempts: attempt,
          },
          s,
        ),
      );
      msg.ack();
      captureDuration.observe({ outcome: result.renderQuality }, (performance.now() - started) / 1000);
      log.info({ renderQuality: result.renderQuality, durationMs: result.render.durationMs, applied: outcome.reply.applied }, 'capture complete');
    } catch (err) {
      const ce = err instanceof CaptureError ? err : null;
      const retryable = ce ? ce.retryable : true;
      const message = ce ? ce.message : `Internal error while storing the capture: ${(err as Error).message}`;
      captureDuration.observe({ outcome: retryable && attempt < MAX_ATTEMPTS ? 'retry' : 'failed' }, (performance.now() - started) / 1000);
      if (retryable && attempt < MAX_ATTEMPTS) {
        log.warn({ err: ce ? { code: ce.code, message } : err }, 'capture attempt failed; will retry');
        msg.nak(retryDelay(attempt));
        return;
      }
      await fail(message, retryable);
    } finally {
      clearInterval(heartbeat);
    }
  }

  const queue = await runWorkQueue({
    js: deps.js,
    jsm: deps.jsm,
    stream: JOBS_STREAM,
    subject: CAPTURE_JOB_SUBJECT,
    durable: WORKER_CONSUMER,
    ackWaitMs: ACK_WAIT_MS,
    concurrency: deps.concurrency,
    spanName: 'capture.job',
    log: deps.log,
    handle,
  });

  return {
    inFlight: () => queue.inFlight(),
    // Drain: let running captures finish (their acks land); the pool close stops stragglers.
    stop: () => queue.stop(deps.timeoutMs + 5000),
  };
}
