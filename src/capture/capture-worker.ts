import type { JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { TenantActors } from '../actors/tenant-actors.js';
import type { Clock } from '../domain/clock.js';
import type { ArtifactRefs, BundleRef } from '../domain/events.js';
import { CAPTURE_JOB_SUBJECT, JOBS_STREAM } from '../ledger/streams.js';
import { captureDuration } from '../observability/metrics.js';
import { runWorkQueue } from '../ledger/work-queue.js';
import type { ArtifactStore } from './artifact-store.js';
import { ARTIFACTS, artifactObjectName, type ArtifactName } from './artifacts.js';
import type { BrowserPool } from './browser-pool.js';
import { CaptureError, type ExplainNetworkError } from './capture-error.js';
import { type CaptureJob, decodeJob } from './capture-job.js';
import { captureSettingsRecord } from './capture-settings-record.js';
import type { PageCaptureResult } from './page-capture.js';
import { buildProvenanceRecord, hostsOf } from './provenance-builder.js';
import type { BundleMaker } from '../archive/bundle-maker.js';
import { provenanceJsonBytes } from '../archive/provenance-record.js';
import type { ObservedConnection } from '../net/connection-log.js';
import { resolveCaptureSettings } from '../domain/capture-options.js';
import { findCaptureStatus } from '../../projections/read-models/captures.js';

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
const JOBS_IN_HAND_PER_BROWSER_SLOT = 2;

export interface CaptureWorkerDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  pool: pg.Pool;
  tenants: TenantActors;
  artifacts: ArtifactStore;
  browsers: BrowserPool;
  log: Logger;
  clock: Clock;
  concurrency: number;
  timeoutMs: number;
  explainNetworkError?: ExplainNetworkError;
  makeBundle?: BundleMaker;
  /** The egress proxy's connections to these hosts since `since` (epoch ms), for the provenance record. */
  observedConnections?: (hosts: Iterable<string>, since: number) => Promise<ObservedConnection[]>;
  /** Delay before a retryable failure is tried again. */
  retryDelayMs?: (attempt: number) => number;
}

export interface CaptureWorker {
  stop(): Promise<void>;
  inFlight(): number;
}

/** The downloadable artifacts of a capture (spec 2.4, plus `pdf`), in the bytes that are stored and served. */
function artifactFiles(result: PageCaptureResult): Array<[ArtifactName, Uint8Array]> {
  const files: Array<[ArtifactName, Uint8Array]> = [
    ['screenshot', result.screenshot],
    ['html', Buffer.from(result.html, 'utf8')],
  ];
  if (result.screenshotBefore) files.push(['screenshot-before', result.screenshotBefore]);
  if (result.pdf) files.push(['pdf', result.pdf]);
  if (result.headers) files.push(['headers', Buffer.from(JSON.stringify(result.headers, null, 2), 'utf8')]);
  return files;
}

const system = (job: CaptureJob) => ({ correlationId: job.correlationId, causedBy: { kind: 'system' as const, component: 'capture-worker' } });

export async function startCaptureWorker(deps: CaptureWorkerDeps): Promise<CaptureWorker> {
  const retryDelay = deps.retryDelayMs ?? ((attempt: number) => Math.min(30_000, 2000 * attempt));

  async function stillPending(captureId: string): Promise<boolean> {
    const status = await findCaptureStatus(deps.pool, captureId);
    return status === null || status === 'pending';
  }

  async function storeArtifacts(job: CaptureJob, files: Array<[ArtifactName, Uint8Array]>) {
    const refs: Partial<ArtifactRefs> = {};
    let bytes = 0;
    // Independent objects: stored side by side, not one round trip after another.
    await Promise.all(
      files.map(async ([name, data]) => {
        const objectName = artifactObjectName(job.captureId, name);
        await deps.artifacts.put(objectName, data);
        bytes += data.byteLength;
        (refs as Record<string, string>)[ARTIFACTS[name].refKey] = objectName;
      }),
    );
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
      await deps.tenants.execute(
        job.tenantId,
        { type: 'FailCapture', data: { captureId: job.captureId, error, retryable, attempts: Math.min(attempt, MAX_ATTEMPTS) } },
        system(job),
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
      const settings = resolveCaptureSettings(job.options);
      const startedAt = deps.clock.now();
      const result = await deps.browsers.capture(job.url, { timeoutMs: deps.timeoutMs, explainNetworkError: deps.explainNetworkError, settings });
      const completedAt = deps.clock.now().toISOString();
      const captureSettings = captureSettingsRecord(result);
      const files = artifactFiles(result);
      const provenance = buildProvenanceRecord({
        captureId: job.captureId,
        requestedUrl: job.url,
        submittedAt: job.createdAt,
        startedAt: startedAt.toISOString(),
        completedAt,
        result,
        captureSettings,
        // Wall clock on both sides: the proxy stamps connections with Date.now().
        connections: deps.observedConnections ? await deps.observedConnections(hostsOf(result), startedAt.getTime() - 1000) : [],
        artifacts: files.map(([name, bytes]) => ({ name, mediaType: ARTIFACTS[name].mediaType, bytes })),
      });
      const bundle =
        result.renderQuality === 'full' && deps.makeBundle
          ? await deps.makeBundle({ captureId: job.captureId, url: job.url, createdAt: job.createdAt, completedAt, result, captureSettings, provenance })
          : null;
      files.push(['provenance', bundle?.provenanceJson ?? provenanceJsonBytes(provenance)]);
      if (bundle) files.push(['wacz', bundle.bytes]);
      const stored = await storeArtifacts(job, files);
      const { bytes: _bytes, provenanceJson: _provenance, ...bundleRef } = bundle ?? { bytes: null, provenanceJson: null };
      const outcome = await deps.tenants.execute(
        job.tenantId,
        {
          type: 'CompleteCapture',
          data: {
            captureId: job.captureId,
            completedAt,
            renderQuality: result.renderQuality,
            // The main document's HTTP status (README, Provenance): an error or bot-challenge page shows as such.
            render: { ...result.render, mainDocumentStatus: result.mainStatus },
            artifacts: stored.refs,
            ...(bundle ? { bundle: bundleRef as BundleRef } : {}),
            captureSettings,
            storedBytes: stored.bytes,
            attempts: attempt,
            finalUrl: result.finalUrl,
          },
        },
        system(job),
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
    // Twice as many jobs in hand as browser slots: while one capture's bundle is built, signed, timestamped
    // and stored, the next one already renders (the pool's slots still bound the browser work).
    concurrency: deps.concurrency * JOBS_IN_HAND_PER_BROWSER_SLOT,
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
