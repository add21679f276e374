import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { ArchiveBucket } from '../../src/ledger-archive/archive-bucket.js';
import { readSegmentRecords } from '../../src/ledger-archive/archive-reader.js';
import type { ArchiveManifest, ArchiveRecord } from '../../packages/verifier/src/archive-segment.js';
import { runCli } from '../../src/cli/run-cli.js';
import { eventually } from './eventually.js';
import { captureUntilComplete } from './fixture-site.js';
import { copyPgTemplate } from './pg-template.js';
import { httpCall } from './test-server.js';
import type { Radosgw } from './radosgw.js';
import { type ServiceProcess, startServiceProcess } from './service-process.js';
import type { Pki, Received, Receiver } from './webhook-receiver.js';

/**
 * The steps the restore drills share (docs/operators.md, restore): the deployment's API as a caller, keys for
 * the tenants, captures, webhooks whose deliveries are counted per event id across the loss, waiting for the
 * archive to catch up, `capture-ledger` commands, and the checks after the restore.
 */
export type Call = (
  method: string,
  path: string,
  opts?: { body?: unknown; token?: string },
) => Promise<{ status: number; body: any; text: string }>;

export const apiCaller =
  (base: string): Call =>
  (method, path, opts = {}) =>
    httpCall(
      `${base}${path}`,
      method,
      {
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...(opts.body ? { 'content-type': 'application/json' } : {}),
      },
      opts.body ? JSON.stringify(opts.body) : undefined,
    );

/**
 * The deployment's settings in a drill: its secrets (which outlive the loss, as an operator keeps them), S3
 * artifacts and the archive under `s3://archive/<prefix>` on the radosgw, webhooks to a receiver of the test CA.
 */
export const drillEnv = (opts: {
  admin: string;
  publicBaseUrl: string;
  gw: Radosgw;
  pki: Pki;
  archivePrefix: string;
}): Record<string, string> => ({
  ADMIN_KEY: opts.admin,
  // The same origin before and after the loss: the log's name is part of its checkpoints.
  PUBLIC_BASE_URL: opts.publicBaseUrl,
  SIGNING_KEY: randomBytes(32).toString('base64'),
  LOG_SIGNING_KEY: randomBytes(32).toString('base64'),
  LOG_CHECKPOINT_INTERVAL_MS: '1000',
  ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
  WEBHOOK_CA_CERTS: opts.pki.caPath,
  // A refused delivery waits long for its retry: it is still owed when the stack is lost.
  WEBHOOK_RETRY_DELAYS: '600',
  RATE_LIMIT_IP_PER_MIN: '100000',
  RATE_LIMIT_TENANT_PER_MIN: '100000',
  CAPTURE_TIMEOUT_MS: '20000',
  WORKER_CONCURRENCY: '2',
  ARTIFACT_STORE: 's3',
  S3_ENDPOINT: opts.gw.endpoint,
  S3_BUCKET: 'evidence',
  S3_ACCESS_KEY_ID: opts.gw.accessKeyId,
  S3_SECRET_ACCESS_KEY: opts.gw.secretAccessKey,
  ARCHIVE_URL: `s3://archive/${opts.archivePrefix}`,
  ARCHIVE_INTERVAL_MS: '500',
  // The restored scheduler fires the due schedule within a second of its projection showing it.
  SCHEDULER_TICK_MS: '1000',
});

/**
 * `make run` of the drill on `dataDir`: its Postgres (DATA_DIR/postgres, src/main.ts) starts from a copy of the run's
 * initialised template (test/support/pg-template.ts) instead of running initdb; NATS and everything else are the
 * service's own.
 */
export async function startDrillService(
  env: Record<string, string>,
  dataDir: string,
  port: number,
): Promise<ServiceProcess> {
  await copyPgTemplate(join(dataDir, 'postgres'));
  return startServiceProcess({ ...env, DATA_DIR: dataDir }, port);
}

/** Generous: a restored deployment rebuilds its projections on a busy 2-core host. */
export const waitFor = <T>(what: string, probe: () => Promise<T | false | null | undefined>, ms = 300_000) =>
  eventually(what, probe, ms, 250);

export async function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    env: { ...process.env, ...env },
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
  });
  return { code, out, err };
}

/** One API key per tenant (capture and read), made by the operator. */
export async function tenantKeys(call: Call, admin: string, tenants: string[]): Promise<Record<string, string>> {
  const keys: Record<string, string> = {};
  for (const tenantId of tenants) {
    const r = await call('POST', '/v1/admin/keys', {
      token: admin,
      body: { tenantId, scopes: ['capture', 'read'], name: 'drill' },
    });
    assert.equal(r.status, 201, r.text);
    keys[tenantId] = r.body.key as string;
  }
  return keys;
}

/** A webhook of the tenant for completed captures at `path` of the receiver. */
export async function registerWebhook(call: Call, token: string, rx: Receiver, path: string) {
  const hook = await call('POST', '/v1/webhooks', {
    token,
    body: { name: path.slice(1), url: rx.url(path), events: ['capture.complete'] },
  });
  assert.equal(hook.status, 201, hook.text);
  return hook.body as { id: string; secret: string };
}

/** `count` captures per tenant of the fixture site's pages, the tenants side by side; the ids per tenant. */
export async function captureEach(
  call: Call,
  keys: Record<string, string>,
  url: (i: number) => string,
  count: number,
): Promise<Record<string, string[]>> {
  const ids = await Promise.all(
    Object.values(keys).map(async (token) => {
      const mine: string[] = [];
      for (let i = 0; i < count; i++) mine.push(await captureUntilComplete(call, token, url(i)));
      return mine;
    }),
  );
  return Object.fromEntries(Object.keys(keys).map((t, i) => [t, ids[i]!]));
}

/**
 * A schedule of the tenant whose one fire time is the first whole minute at least `marginMs` from now (cron has
 * minute resolution): created as the last step before the loss, the margin covers the archive catching up and the
 * kill, so the fire time falls after the loss. Returns its id and the fire time.
 */
export async function scheduleAfterLoss(
  call: Call,
  token: string,
  opts: { name: string; url: string; marginMs: number },
): Promise<{ id: string; fireAt: Date }> {
  const fireAt = new Date(Math.ceil((Date.now() + opts.marginMs) / 60_000) * 60_000);
  const schedule = await call('POST', '/v1/schedules', {
    token,
    body: { name: opts.name, url: opts.url, cron: `${fireAt.getUTCMinutes()} * * * *` },
  });
  assert.equal(schedule.status, 201, schedule.text);
  return { id: schedule.body.id as string, fireAt };
}

/** What the usage endpoint counts from the ledger (API call counts not yet flushed die with a process). */
export async function usageOf(call: Call, admin: string, tenants: string[]) {
  const usage: Record<string, { captureCount: number; storageBytes: number }> = {};
  for (const tenant of tenants) {
    const { captureCount, storageBytes } = (await call('GET', `/v1/admin/usage?tenant=${tenant}`, { token: admin }))
      .body;
    usage[tenant] = { captureCount, storageBytes };
  }
  return usage;
}

/**
 * Waits until the webhook's attempts recorded in the ledger (as the operator's view shows them) cover `eventIds`
 * with the outcome given: the records a restore must find to know which deliveries were finished.
 */
export async function waitForAttempts(
  call: Call,
  admin: string,
  webhookId: string,
  eventIds: string[],
  outcome: 'delivered' | 'failed',
): Promise<void> {
  await waitFor(`${eventIds.length} ${outcome} attempts of webhook ${webhookId}`, async () => {
    const r = await call('GET', `/v1/admin/webhooks/${webhookId}/deliveries?limit=1000`, { token: admin });
    const seen = new Set(
      (r.body?.data ?? [])
        .filter((a: { outcome: string }) => a.outcome === outcome)
        .map((a: { eventId: string }) => a.eventId),
    );
    return eventIds.every((id) => seen.has(id));
  });
}

/** The capture id of each request a receiver path answered, with how often its event id came. */
export function deliveriesPerEvent(received: Received[]): Map<string, { count: number; captureId: string }> {
  const byEvent = new Map<string, { count: number; captureId: string }>();
  for (const r of received) {
    const id = String(r.headers['x-svc-event-id'] ?? r.body?.id);
    const seen = byEvent.get(id) ?? { count: 0, captureId: r.body?.data?.id };
    seen.count++;
    byEvent.set(id, seen);
  }
  return byEvent;
}

/** Waits until the archive holds everything the deployment stored (`lagEvents` 0, also on /metrics). */
export async function waitForArchiveLag0(call: Call, admin: string): Promise<{ lastSegment: number; ms: number }> {
  const started = Date.now();
  const archived = await waitFor('the archive to catch up, on the endpoint and on /metrics', async () => {
    const r = await call('GET', '/v1/admin/archive', { token: admin });
    assert.equal(r.status, 200, r.text);
    if (r.body.lagEvents !== 0) return false;
    // Read right after: a message appended between the two reads (the API call counts recorded every 5 s) shows
    // there as lag 1, and the next poll reads both again.
    return /capture_ledger_archive_lag_events 0/.test((await call('GET', '/metrics')).text) && r.body;
  });
  return { lastSegment: archived.lastSegment, ms: Date.now() - started };
}

/** `capture-ledger restore --from <url>`: its JSON report, once it exits 0 naming no lost capture. */
export async function restoreFrom(url: string, env: Record<string, string>): Promise<{ report: any; ms: number }> {
  const started = Date.now();
  const restored = await cli(['restore', '--from', url], env);
  assert.equal(restored.code, 0, restored.err);
  const report = JSON.parse(restored.out);
  assert.deepEqual(report.lost, [], 'every capture with stored artifacts is in the archive');
  return { report, ms: Date.now() - started };
}

/** Every tenant's captures are listed with its old key (once the projections are rebuilt) and each verifies. */
export async function assertCapturesRestored(
  call: Call,
  keys: Record<string, string>,
  captured: Record<string, string[]>,
): Promise<void> {
  for (const [tenant, token] of Object.entries(keys)) {
    const mine = captured[tenant]!;
    await waitFor(`${tenant}'s captures listed`, async () => {
      const list = await call('GET', '/v1/captures?limit=100', { token });
      const ids = new Set((list.body?.data ?? []).map((c: { id: string }) => c.id));
      return mine.every((id) => ids.has(id));
    });
  }
  for (const id of Object.values(captured).flat()) {
    const v = await call('GET', `/v1/verify/${id}`);
    assert.equal(v.body?.verified, true, `${id}: ${v.text}`);
  }
}

/** `capture-ledger audit` of every tenant and `log audit`, run with `env` (where the restored deployment is). */
export async function assertAuditsPass(tenants: string[], env: Record<string, string>): Promise<void> {
  for (const tenant of tenants) {
    const audit = await cli(['audit', '--tenant', tenant], env);
    assert.equal(audit.code, 0, audit.err + audit.out);
  }
  const logAudit = await cli(['log', 'audit'], env);
  assert.equal(logAudit.code, 0, logAudit.err + logAudit.out);
}

/** `capture-ledger log monitor` of the log at `base` with its state in `stateFile`, checking the capture ids. */
export const logMonitor =
  (opts: { logKey: string; stateFile: string; idsFile: string; env: Record<string, string> }) => (base: string) =>
    cli(
      [
        'log',
        'monitor',
        '--log-url',
        `${base}/v1/log`,
        '--log-key',
        opts.logKey,
        '--state',
        opts.stateFile,
        '--capture-ids',
        opts.idsFile,
      ],
      opts.env,
    );

/**
 * The restored streams hold exactly the archive's messages: as many as the archive has of each, every one at its
 * own sequence with its subject and bytes (a republish accepted twice would show as one more, or one moved).
 */
export async function assertStreamsAreArchive(
  jsm: JetStreamManager,
  bucket: ArchiveBucket,
  streams: string[],
): Promise<void> {
  const archived = new Map<string, ArchiveRecord[]>(streams.map((s) => [s, []]));
  const last = await bucket.lastSegment();
  for (let n = 1; n <= last; n++) {
    const manifest = JSON.parse(Buffer.from((await bucket.readManifest(n))!).toString('utf8')) as ArchiveManifest;
    for (const r of await readSegmentRecords(bucket, manifest)) archived.get(r.stream)?.push(r);
  }
  for (const [stream, records] of archived) {
    const { state } = await jsm.streams.info(stream);
    assert.deepEqual(
      { first: state.first_seq, last: state.last_seq, messages: state.messages },
      { first: 1, last: records.length, messages: records.length },
      `${stream} holds the archive's ${records.length} messages`,
    );
    for (const r of records) {
      const m = await jsm.streams.getMessage(stream, { seq: r.seq });
      assert.deepEqual(
        [m?.subject, Buffer.from(m?.data ?? [])],
        [r.subject, Buffer.from(r.data, 'base64')],
        `${stream} ${r.seq}`,
      );
    }
  }
}
