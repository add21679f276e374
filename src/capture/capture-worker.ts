import { randomBytes } from 'node:crypto';
import type { JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { ArtifactRefs } from '../domain/events.js';
import { CAPTURE_JOB_SUBJECT, JOBS_STREAM } from '../ledger/streams.js';
import { captureDuration, captureRetries } from '../observability/metrics.js';
import { runWorkQueue } from '../ledger/work-queue.js';
import type { ArtifactStore } from '../storage/artifact-store.js';
import type { CaptureOutcomes } from './capture-outcomes.js';
import { ARTIFACTS, artifactObjectName, type ArtifactName } from '../domain/artifacts.js';
import type { BrowserPool } from './browser-pool.js';
import {
  type AttemptPolicy,
  afterFailure,
  beforeAttempt,
  defaultPageDelayMs,
  type Failure,
  type Verdict,
} from './attempt-policy.js';
import type { AttemptStore } from './attempt-store.js';
import { CaptureError, type ExplainNetworkError, FAILURE_CLASSES } from './capture-error.js';
import { type CaptureJob, decodeJob } from './capture-job.js';
import { captureSettingsRecord } from './capture-settings-record.js';
import type { PageCaptureResult } from './page-capture.js';
import { buildProvenanceRecord, hostsOf } from './provenance-builder.js';
import type { Notary } from '../archive/notary.js';
import { provenanceJsonBytes, type ProvenanceRecord } from '../archive/provenance-record.js';
import type { ObservedConnection } from '../net/connection-log.js';
import { resolveCaptureSettings } from '../domain/capture-options.js';
import { DURABLES } from '../infra/topology.js';
import { newAttemptKey } from '../domain/ids.js';
import type { DnsAnswer } from '../net/resolve.js';
import type { VantageRoute } from '../vantages/vantage-egress.js';
import { enterVantage } from '../vantages/vantage-capture.js';
import { memberPlacement } from '../vantages/corroboration-rules.js';
import type { MemberClaims } from './member-claims.js';
import { openCaptureProfile, type OpenProfile } from '../profiles/capture-profile.js';

/**
 * The browser worker (DESIGN decisions 3 and 13): takes capture jobs from the JOBS work queue, renders each
 * in the browser pool, stores the artifacts, and appends the outcome through the tenant actor (idempotent,
 * deduped per capture). Redelivery after a crash is normal. A failure is the page's (it uses one of the
 * page's attempts) or the service's own (retried after a backoff, outside the page's attempts); the
 * attempt counts live in a KV bucket (attempt-store.ts), so any worker after any crash knows them. A capture
 * that fails for good carries `retryable` and its `failureReason`.
 */

export const WORKER_CONSUMER = DURABLES.captureWorkers.name;
const ACK_WAIT_MS = 30_000;
const HEARTBEAT_MS = 5_000;
const JOBS_IN_HAND_PER_BROWSER_SLOT = 2;

export interface CaptureWorkerDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  /**
   * Where outcomes go, and who says whether a capture is still pending: the owner of the tenant actors, from the
   * tenant's state folded from the log (src/capture/capture-outcomes.ts).
   */
  outcomes: CaptureOutcomes;
  artifacts: ArtifactStore;
  /** When the tenant's captures are retained until, from their completion; absent or null: no retention. */
  retention?: (tenantId: string, completedAt: Date) => Promise<Date | null>;
  browsers: BrowserPool;
  log: Logger;
  clock: Clock;
  /** Browser slots (the adaptive limit when it is a function); the worker holds twice as many jobs. */
  concurrency: number | (() => number);
  timeoutMs: number;
  attempts: AttemptStore;
  explainNetworkError?: ExplainNetworkError;
  /** Who time-stamps and signs the bundles this worker builds (the signer role, DESIGN decision 7); absent: no bundles. */
  notary?: Notary;
  /** The egress proxy's connections to these hosts since `since` (epoch ms), for the provenance record. */
  observedConnections?: (hosts: Iterable<string>, since: number) => Promise<ObservedConnection[]>;
  /** The worker's vantage points by id: their egress proxies and exit probes. */
  vantages?: (id: string) => VantageRoute | undefined;
  /** The resolver's answers for these hosts since `since` (epoch ms), for the provenance record. */
  dnsAnswers?: (hosts: Iterable<string>, since: number) => DnsAnswer[];
  /** When captures are tried again (attempt-policy.ts); default: 2 s per page failure, CAPTURE_RETRY_DELAYS' default for the service's. */
  policy?: AttemptPolicy;
  /** Which worker took which member of a corroborated set; absent: members render wherever taken. */
  memberClaims?: MemberClaims;
  /** Opens a tenant's browser profile from the vault (src/profiles/capture-profile.ts). */
  openProfile?: OpenProfile;
}

export interface CaptureWorker {
  stop(): Promise<void>;
  inFlight(): number;
}

/** The downloadable artifacts of a capture (spec 2.4, plus `pdf` and `session`), in the bytes that are stored and served. */
function artifactFiles(result: PageCaptureResult): Array<[ArtifactName, Uint8Array]> {
  const files: Array<[ArtifactName, Uint8Array]> = [
    ['screenshot', result.screenshot],
    ['html', Buffer.from(result.html, 'utf8')],
  ];
  if (result.screenshotBefore) files.push(['screenshot-before', result.screenshotBefore]);
  if (result.pdf) files.push(['pdf', result.pdf]);
  if (result.sessionRecording) files.push(['session', result.sessionRecording.video]);
  if (result.headers) files.push(['headers', Buffer.from(JSON.stringify(result.headers, null, 2), 'utf8')]);
  return files;
}

const system = (job: CaptureJob) => ({
  correlationId: job.correlationId,
  causedBy: { kind: 'system' as const, component: 'capture-worker' },
});

export const DEFAULT_SERVICE_RETRY_DELAYS_MS = [30_000, 120_000, 300_000, 600_000, 600_000] as const;

/** What one worker holds while it runs: its dependencies, its id and when it tries captures again. */
interface WorkerState {
  readonly deps: CaptureWorkerDeps;
  /** Named in each provenance record, so a corroborated set shows whether its members shared a worker. */
  readonly workerId: string;
  readonly policy: AttemptPolicy;
}

export async function startCaptureWorker(deps: CaptureWorkerDeps): Promise<CaptureWorker> {
  const worker: WorkerState = {
    deps,
    workerId: `wrk_${randomBytes(8).toString('hex')}`,
    policy: deps.policy ?? { serviceDelaysMs: DEFAULT_SERVICE_RETRY_DELAYS_MS, pageDelayMs: defaultPageDelayMs },
  };
  const queue = await runWorkQueue({
    js: deps.js,
    jsm: deps.jsm,
    stream: JOBS_STREAM,
    subject: CAPTURE_JOB_SUBJECT,
    durable: WORKER_CONSUMER,
    ackWaitMs: ACK_WAIT_MS,
    // Twice as many jobs in hand as browser slots: while one capture's bundle is built, signed, timestamped
    // and stored, the next one already renders (the pool's slots still bound the browser work).
    concurrency: () =>
      (typeof deps.concurrency === 'number' ? deps.concurrency : deps.concurrency()) * JOBS_IN_HAND_PER_BROWSER_SLOT,
    spanName: 'capture.job',
    log: deps.log,
    handle: (msg) => handleJob(worker, msg),
  });

  return {
    inFlight: () => queue.inFlight(),
    // Drain: let running captures finish (their acks land); the pool close stops stragglers.
    stop: () => queue.stop(deps.timeoutMs + 5000),
  };
}

/** One delivery of a capture job: dropped, given back, failed for good, or tried now. */
async function handleJob(worker: WorkerState, msg: JsMsg): Promise<void> {
  const { deps } = worker;
  const job = decodeJob(msg.data);
  const log = deps.log.child({
    captureId: job.captureId,
    tenantId: job.tenantId,
    delivery: msg.info.deliveryCount,
    correlationId: job.correlationId,
  });
  // A redelivered job whose capture already has its outcome (the ack was lost): rendering it again would
  // only store another attempt's artifacts that no event names.
  if (!(await deps.outcomes.isPending(job.tenantId, job.captureId))) {
    log.info('capture no longer pending; job dropped');
    msg.ack();
    return;
  }
  if (job.corroborationId && deps.memberClaims) {
    const placement = await placeMember(worker, job, job.corroborationId, deps.memberClaims, log);
    if (placement.kind === 'give-back') {
      log.debug({ corroborationId: job.corroborationId, delayMs: placement.delayMs }, 'member given back');
      msg.nak(placement.delayMs);
      return;
    }
  }
  const { counts, verdict } = await deps.attempts.begin(job.captureId, (c) =>
    beforeAttempt(c, worker.policy, Date.now() - (c.lastAt ?? 0)),
  );
  if (verdict.kind === 'fail') return failForGood(worker, msg, job, log, verdict);
  if (verdict.kind === 'wait') {
    // An attempt abandoned by a stopped worker: the service's backoff, counted from that attempt's start.
    log.warn(
      { delayMs: verdict.delayMs, service: counts.service },
      'earlier attempt was abandoned; waiting before the next',
    );
    msg.nak(verdict.delayMs);
    return;
  }
  await runAttempt(worker, msg, job, log, counts.page + counts.service + 1);
}

/** One attempt at the capture, kept alive while it runs; a failure is counted and the job retried or failed. */
async function runAttempt(worker: WorkerState, msg: JsMsg, job: CaptureJob, log: Logger, attempt: number) {
  const { deps } = worker;
  const heartbeat = setInterval(() => msg.working(), HEARTBEAT_MS);
  const started = performance.now();
  try {
    const done = await captureAndComplete(worker, job, attempt, log);
    msg.ack();
    await deps.attempts.clear(job.captureId).catch(() => {});
    captureDuration.observe({ outcome: done.renderQuality }, (performance.now() - started) / 1000);
    log.info({ attempt, ...done }, 'capture complete');
  } catch (err) {
    const failure = classify(err);
    const after = await deps.attempts.fail(job.captureId, failure);
    const next = afterFailure(after, worker.policy);
    captureDuration.observe(
      { outcome: next.kind === 'fail' ? 'failed' : 'retry' },
      (performance.now() - started) / 1000,
    );
    // The cause carries what the browser itself said (e.g. Chromium's "FATAL: Socket path too long").
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : undefined;
    if (next.kind === 'fail') {
      log.warn({ attempt, failure, cause }, 'capture attempt failed; no attempts left');
      await failForGood(worker, msg, job, log, next);
      return;
    }
    captureRetries.inc({ owner: failure.owner });
    log.warn(
      {
        attempt,
        failure,
        cause,
        retryInMs: next.kind === 'wait' ? next.delayMs : 0,
        page: after.page,
        service: after.service,
      },
      'capture attempt failed; will retry',
    );
    msg.nak(next.kind === 'wait' ? next.delayMs : 0);
  } finally {
    clearInterval(heartbeat);
  }
}

async function failForGood(
  worker: WorkerState,
  msg: JsMsg,
  job: CaptureJob,
  log: Logger,
  verdict: Extract<Verdict, { kind: 'fail' }>,
): Promise<void> {
  const { error, retryable, failureReason, attempts } = verdict;
  await worker.deps.outcomes.report(
    job.tenantId,
    { type: 'FailCapture', data: { captureId: job.captureId, error, retryable, attempts, failureReason } },
    system(job),
  );
  await worker.deps.attempts.clear(job.captureId).catch(() => {}); // the entry expires anyway
  msg.ack();
  log.info({ error, retryable, failureReason, attempts }, 'capture failed');
}

/**
 * A member of a corroborated set renders on another worker than the set's other members: this
 * worker claims the set with it, or — holding another member already — gives it back for a while
 * (memberPlacement: bounded well within the window, then rendered here; never dropped).
 */
async function placeMember(worker: WorkerState, job: CaptureJob, setId: string, claims: MemberClaims, log: Logger) {
  const held = await claims.claim(setId, worker.workerId, job.captureId);
  const waitedMs = worker.deps.clock.now().getTime() - Date.parse(job.createdAt);
  const placement = memberPlacement({ holdsAnotherMember: held !== job.captureId, waitedMs });
  if (held !== job.captureId && placement.kind === 'render')
    log.info(
      { corroborationId: setId, heldMember: held, waitedMs },
      'no other worker took this member of the set in time; rendering it here (its record will name workers)',
    );
  return placement;
}

type Vantage = Awaited<ReturnType<typeof enterVantage>>;

/** Renders, stores and completes one capture; throws what went wrong. */
async function captureAndComplete(
  worker: WorkerState,
  job: CaptureJob,
  attempt: number,
  log: Logger,
): Promise<{ renderQuality: string; durationMs: number; applied: boolean }> {
  const { deps } = worker;
  const settings = resolveCaptureSettings(job.options);
  // This attempt's objects: a retry after a killed worker writes beside them, never over them (write-once).
  const attemptKey = newAttemptKey();
  const startedAt = deps.clock.now();
  const vantage = await enterVantage(job.options?.vantage, deps.vantages);
  // The profile opens (a KV read, a decryption) while the browser prepares the context; the capture's load-profile
  // step waits for it, and a profile that cannot be opened fails the capture there.
  const profileId = job.options?.profile;
  const opening = profileId === undefined ? undefined : openCaptureProfile(job.tenantId, profileId, deps.openProfile);
  opening?.catch(() => {}); // the capture's load-profile step reports it
  const result = await deps.browsers.capture(job.url, {
    ...(opening ? { profile: opening } : {}),
    timeoutMs: deps.timeoutMs,
    explainNetworkError: vantage ? vantage.route.explain : deps.explainNetworkError,
    settings,
    log,
    ...(vantage ? { proxyServer: vantage.route.proxyUrl } : {}),
  });
  const completedAt = deps.clock.now().toISOString();
  const profile = await opening;
  const captureSettings = { ...captureSettingsRecord(result), ...(profile ? { signedIn: profile.record } : {}) };
  // The tenant's retention: every object of the capture is stored locked until then.
  const retainUntil = deps.retention ? await deps.retention(job.tenantId, new Date(completedAt)) : null;
  const rendered: Rendered = {
    job,
    attemptKey,
    result,
    captureSettings,
    vantage,
    startedAt,
    completedAt,
    files: artifactFiles(result),
    retainUntil,
  };
  const provenance = await provenanceOf(worker, rendered);
  const { stored, bundle } = await storeEvidence(worker, rendered, provenance);
  const outcome = await deps.outcomes.report(
    job.tenantId,
    {
      type: 'CompleteCapture',
      data: {
        captureId: job.captureId,
        completedAt,
        renderQuality: result.renderQuality,
        // The main document's HTTP status (docs/capturing.md, Provenance): an error or bot-challenge page shows as such.
        render: { ...result.render, mainDocumentStatus: result.mainStatus },
        artifacts: stored.refs as ArtifactRefs,
        ...(bundle ? { bundle: bundle.ref } : {}),
        captureSettings,
        storedBytes: stored.bytes,
        attempts: attempt,
        finalUrl: result.finalUrl,
      },
    },
    system(job),
  );
  return { renderQuality: result.renderQuality, durationMs: result.render.durationMs, applied: outcome.reply.applied };
}

/** One attempt's rendered capture, on its way to the store. */
interface Rendered {
  job: CaptureJob;
  /** Names this attempt's objects. */
  attemptKey: string;
  result: PageCaptureResult;
  captureSettings: ReturnType<typeof captureSettingsRecord>;
  vantage: Vantage;
  startedAt: Date;
  completedAt: string;
  files: Array<[ArtifactName, Uint8Array]>;
  retainUntil: Date | null;
}

/** The capture's provenance record: where it ran, what it connected to and resolved, what it stored. */
async function provenanceOf(worker: WorkerState, c: Rendered) {
  const { deps } = worker;
  const { job, result, vantage, startedAt, retainUntil } = c;
  return buildProvenanceRecord({
    ...(retainUntil
      ? { retention: { mode: 'compliance', retainUntil: retainUntil.toISOString(), storage: 'S3 Object Lock' } }
      : {}),
    captureId: job.captureId,
    requestedUrl: job.url,
    submittedAt: job.createdAt,
    startedAt: startedAt.toISOString(),
    completedAt: c.completedAt,
    result,
    captureSettings: c.captureSettings,
    // Wall clock on both sides: the proxy stamps connections with Date.now().
    connections: vantage
      ? await vantage.route.observedConnections(hostsOf(result), startedAt.getTime() - 1000)
      : deps.observedConnections
        ? await deps.observedConnections(hostsOf(result), startedAt.getTime() - 1000)
        : [],
    artifacts: c.files.map(([name, bytes]) => ({ name, mediaType: ARTIFACTS[name].mediaType, bytes })),
    ...(deps.dnsAnswers ? { dnsAnswers: deps.dnsAnswers(hostsOf(result), startedAt.getTime() - 1000) } : {}),
    ...(vantage ? { vantage: vantage.provenance } : {}),
    worker: worker.workerId,
  });
}

/**
 * The bundle's modules (WARC, WACZ, the PDF signature's PKI libraries), imported at the first bundle: a worker
 * process does not compile them at start.
 */
let bundleImport: Promise<typeof import('../archive/bundle.js')> | undefined;
const bundleModule = () => (bundleImport ??= import('../archive/bundle.js'));

/**
 * The page's artifacts are stored while the bundle is built, signed and time-stamped; then its own two (the
 * provenance record, and the WACZ of a full capture).
 */
async function storeEvidence(worker: WorkerState, c: Rendered, provenance: ProvenanceRecord) {
  const { deps } = worker;
  const { job, attemptKey, result, retainUntil } = c;
  const storingPageArtifacts = storeArtifacts(worker, job, attemptKey, c.files, retainUntil);
  storingPageArtifacts.catch(() => {}); // awaited below, after the bundle
  const bundle =
    result.renderQuality === 'full' && deps.notary
      ? await (await bundleModule()).makeBundle(
          {
            captureId: job.captureId,
            url: job.url,
            createdAt: job.createdAt,
            completedAt: c.completedAt,
            page: result,
            captureSettings: c.captureSettings,
            provenance,
          },
          deps.notary,
        )
      : null;
  if (bundle?.timestampError) {
    deps.log.warn(
      { captureId: job.captureId, err: bundle.timestampError },
      'TSA unavailable after retries; bundle issued as v0.1.0 without a timestamp',
    );
  }
  const bundleFiles: Array<[ArtifactName, Uint8Array]> = [
    ['provenance', bundle?.provenanceJson ?? provenanceJsonBytes(provenance)],
  ];
  if (bundle) bundleFiles.push(['wacz', bundle.bytes]);
  const [pageStored, bundleStored] = await Promise.all([
    storingPageArtifacts,
    storeArtifacts(worker, job, attemptKey, bundleFiles, retainUntil),
  ]);
  const stored = { refs: { ...pageStored.refs, ...bundleStored.refs }, bytes: pageStored.bytes + bundleStored.bytes };
  return { stored, bundle };
}

async function storeArtifacts(
  worker: WorkerState,
  job: CaptureJob,
  attemptKey: string,
  files: Array<[ArtifactName, Uint8Array]>,
  retainUntil: Date | null,
) {
  const refs: Partial<ArtifactRefs> = {};
  let bytes = 0;
  // Independent objects: stored side by side, not one round trip after another.
  await Promise.all(
    files.map(async ([name, data]) => {
      const objectName = artifactObjectName(job.captureId, attemptKey, name);
      await worker.deps.artifacts.put(objectName, data, retainUntil ? { retainUntil } : {});
      bytes += data.byteLength;
      (refs as Record<string, string>)[ARTIFACTS[name].refKey] = objectName;
    }),
  );
  return { refs, bytes };
}

/** Whose failure an error is and how the tenant is told (capture-error.ts FAILURE_CLASSES). */
export function classify(err: unknown): Failure {
  if (err instanceof CaptureError) {
    const { failureReason, owner } = FAILURE_CLASSES[err.code];
    return { owner, failureReason, error: err.message, retryable: err.retryable };
  }
  // Storing, signing or appending failed: the service's own trouble (NATS, the signer, the object store).
  const message = err instanceof Error ? err.message : String(err);
  return {
    owner: 'service',
    failureReason: 'service_overloaded',
    error: `The capture could not be stored: ${message}`,
    retryable: true,
  };
}
