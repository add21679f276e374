import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { corroborationStore } from '../../../src/vantages/corroboration-storage.js';
import { evidenceRetention } from '../../../src/application/retention.js';
import { StorageUnavailableError } from '../../../src/storage/artifact-store.js';
import { openS3ArtifactStore, s3Client } from '../../../src/storage/s3-artifact-store.js';
import { type S3Settings, storageSettings } from '../../../src/config/storage-config.js';
import { corroborationKeys } from '../../../src/vantages/corroboration-rules.js';
import { newId } from '../../../src/domain/ids.js';
import { openCertificateStore } from '../../../src/evidence/certificate.js';
import { certificateObjectName } from '../../../src/evidence/certificate-storage.js';
import { cli, jsonLines } from '../cli/cli-fixtures.js';
import { type FixtureSite, captureUntilComplete, startFixtureSite } from '../../support/fixture-site.js';
import { type Radosgw, startRadosgw } from '../../support/radosgw.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../support/test-server.js';

const DAY_MS = 86_400_000;
const BUCKET = 'evidence';

/**
 * S3 storage as an operator meets it, against a real radosgw: every object of a capture's evidence locked like
 * its artifacts (certificates and change certificates too) and moved together when the retention is extended; a
 * lost object reported as what it is; a bucket without Object Lock refused while retention is configured; wrong
 * credentials and an outage named; the per-address limit for unauthenticated requests only.
 */
describe('S3 storage for operators', () => {
  let gw: Radosgw;
  let site: FixtureSite;
  let s: TestServer;
  let raw: S3Client;
  let token: string;
  let looseToken: string;
  const captures: string[] = [];
  let env: Record<string, string>;
  const admin = (method: string, path: string, body?: unknown) =>
    s.call(method, path, { token: ADMIN_KEY, from: '127.0.0.60', ...(body ? { body } : {}) });
  const settingsOf = (vars: Record<string, string>) => storageSettings({ ARTIFACT_STORE: 's3', ...vars }) as S3Settings;

  /** Every name record of the capture's evidence in the bucket, and each one's retention and its blob's. */
  async function locksOf(captureId: string) {
    const keys: string[] = [];
    for (const prefix of [`names/${captureId}/`, `names/diffs/${captureId}/`]) {
      const listed = await raw.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
      keys.push(...(listed.Contents ?? []).map((o) => o.Key!));
    }
    return Promise.all(
      keys.map(async (Key) => {
        const named = await raw.send(new HeadObjectCommand({ Bucket: BUCKET, Key }));
        const got = await raw.send(new GetObjectCommand({ Bucket: BUCKET, Key }));
        const record = JSON.parse(await got.Body!.transformToString());
        const blob = await raw.send(
          new HeadObjectCommand({ Bucket: BUCKET, Key: record.blob, VersionId: record.version }),
        );
        return {
          Key,
          record,
          name: [named.ObjectLockMode, named.ObjectLockRetainUntilDate?.toISOString()],
          blob: [blob.ObjectLockMode, blob.ObjectLockRetainUntilDate?.toISOString()],
        };
      }),
    );
  }

  before(async () => {
    [gw, site] = await Promise.all([startRadosgw(), startFixtureSite()]);
    env = {
      ARTIFACT_STORE: 's3',
      S3_ENDPOINT: gw.endpoint,
      S3_BUCKET: BUCKET,
      S3_ACCESS_KEY_ID: gw.accessKeyId,
      S3_SECRET_ACCESS_KEY: gw.secretAccessKey,
    };
    s = await startTestServer({
      ...env,
      ROLES: 'api,projector,worker',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      CAPTURE_TIMEOUT_MS: '15000',
      WORKER_CONCURRENCY: '1',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      RETENTION_DEFAULT_DAYS: '1',
      S3_PRESIGNED_DOWNLOADS: 'true',
    });
    raw = s3Client(settingsOf(env));
    for (const tenantId of ['keep', 'loose']) {
      const created = await admin('POST', '/v1/admin/keys', { tenantId, scopes: ['capture', 'read'], name: 'k' });
      assert.equal(created.status, 201, created.text);
      if (tenantId === 'keep') token = created.body.key;
      else looseToken = created.body.key;
    }
  });
  after(async () => {
    raw?.destroy();
    await s?.stop();
    await site?.close();
    await gw?.stop();
  });

  it('locks every evidence object like the artifacts: certificate, change certificate, their blobs', async () => {
    const call = (m: string, p: string, o: { body?: unknown } = {}) => s.call(m, p, { token, ...o });
    captures.push(await captureUntilComplete(call, token, site.url('/simple')));
    captures.push(await captureUntilComplete(call, token, site.url('/simple')));
    const [first, second] = captures as [string, string];
    const certificate = await call('GET', `/v1/captures/${second}/certificate`);
    assert.equal(certificate.status, 200, certificate.text);
    const change = await call('POST', `/v1/captures/${second}/diff/certificate?base=${first}`);
    assert.equal(change.status, 200, change.text);

    // The date the worker locked the capture's artifacts to (completion + the default retention), as it says.
    const until = (await call('GET', `/v1/captures/${second}/provenance`)).body.retention.retainUntil;
    assert.ok(until);
    const locks = await locksOf(second);
    const keys = locks.map((l) => l.Key);
    assert.ok(keys.includes(`names/${certificateObjectName(second)}`), keys.join(' '));
    assert.ok(
      keys.some((k) => k.startsWith(`names/diffs/${second}/${first}/`) && k.endsWith('.pdf')),
      keys.join(' '),
    );
    for (const l of locks) {
      assert.deepEqual(l.name, ['COMPLIANCE', until], `${l.Key} is locked until completion + retention`);
      assert.deepEqual(l.blob, ['COMPLIANCE', until], `the blob of ${l.Key} is locked until completion + retention`);
    }
    // Compliance mode: the certificate's bytes cannot be deleted.
    const cert = locks.find((l) => l.Key === `names/${certificateObjectName(second)}`)!;
    await assert.rejects(
      raw.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: cert.record.blob, VersionId: cert.record.version })),
    );
  });

  it('a lost certificate is a 500 naming the object, as storage verify names it; never a signer to wait for', async () => {
    // A tenant without retention: its objects are not locked, so the loss can happen.
    const none = await admin('PUT', '/v1/admin/tenants/loose/retention', { days: 0, by: 'ops', reason: 'test data' });
    assert.equal(none.status, 200, none.text);
    const call = (m: string, p: string, o: { body?: unknown } = {}) => s.call(m, p, { token: looseToken, ...o });
    const captureId = await captureUntilComplete(call, looseToken, site.url('/simple'));
    const issued = await call('GET', `/v1/captures/${captureId}/certificate`);
    assert.equal(issued.status, 200, issued.text);
    const object = certificateObjectName(captureId);
    const [lock] = (await locksOf(captureId)).filter((l) => l.Key === `names/${object}`);
    assert.ok(lock, 'the certificate is stored');
    await raw.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: lock.record.blob, VersionId: lock.record.version }));

    const lost = await call('GET', `/v1/captures/${captureId}/certificate`);
    assert.equal(lost.status, 500, lost.text);
    assert.ok(lost.body.detail.includes(object), lost.body.detail);
    assert.match(lost.body.detail, /missing from storage/);
    assert.equal(lost.headers.get('retry-after'), null);

    const verify = await cli(['storage', 'verify'], {
      ...env,
      NATS_URL: s.infra.nats.url,
      DATABASE_URL: s.databaseUrl,
    });
    assert.equal(verify.code, 1, verify.stderr);
    const problems = jsonLines(verify.stdout).filter((l) => !l.summary);
    assert.deepEqual(
      problems.map((p) => [p.captureId, p.artifact, p.object, p.status]),
      [[captureId, 'certificate', object, 'missing']],
    );
  });

  it('extending the retention moves every object of the evidence, name records too; the API reads it back', async () => {
    const captureId = captures[1]!;
    const later = new Date(Date.now() + 400 * DAY_MS).toISOString();
    const extended = await admin('PUT', `/v1/admin/captures/${captureId}/retention`, {
      retainUntil: later,
      by: 'records@example.com',
      reason: 'litigation expected',
    });
    assert.equal(extended.status, 200, extended.text);
    assert.equal(extended.body.retainUntil, later);
    for (const l of await locksOf(captureId)) {
      assert.deepEqual(l.name, ['COMPLIANCE', later], `${l.Key} moved`);
      assert.deepEqual(l.blob, ['COMPLIANCE', later], `the blob of ${l.Key} moved`);
    }
    const read = await admin('GET', `/v1/admin/captures/${captureId}/retention`);
    assert.equal(read.body.retainUntil, later);
  });

  it('stores a corroboration record under each member, locked until the latest member is retained', async () => {
    const store = await openS3ArtifactStore(settingsOf(env));
    const kv = await openCertificateStore(s.server.nats.nc);
    const records = corroborationStore(store, kv, evidenceRetention(s.server.ctx, store));
    const id = newId('cor');
    const members = captures.slice(0, 2);
    await kv.put(
      corroborationKeys.set(id),
      JSON.stringify({ id, url: site.url('/simple'), members: members.map((captureId) => ({ captureId })) }),
    );
    const record = new TextEncoder().encode(JSON.stringify({ record: { id }, recordHash: 'sha256:00' }));
    await records.create(corroborationKeys.record(id), record);
    assert.deepEqual(Buffer.from((await records.get(corroborationKeys.record(id)))!.value), Buffer.from(record));
    assert.equal(await kv.get(corroborationKeys.record(id)), null, 'the record is in S3, not in the KV bucket');
    // The second member's retention was extended (the test before): the record is held as long as it.
    const latest = (await admin('GET', `/v1/admin/captures/${members[1]}/retention`)).body.retainUntil;
    for (const captureId of members) {
      const [lock] = (await locksOf(captureId)).filter((l) => l.Key === `names/${captureId}/corroboration/${id}.json`);
      assert.ok(lock, `the record is stored under ${captureId}`);
      assert.deepEqual(lock.name, ['COMPLIANCE', latest]);
      assert.deepEqual(lock.blob, ['COMPLIANCE', latest]);
    }
  });

  it('counts authenticated requests against the tenant, not the address; lowering a retention says what it does', async () => {
    const limited = await startTestServer(
      { ...env, ROLES: 'api', RATE_LIMIT_IP_PER_MIN: '5' },
      { infra: s.infra, databaseUrl: s.databaseUrl },
    );
    try {
      const captureId = captures[0]!;
      for (let i = 0; i < 12; i++) {
        const status = await limited.call('GET', `/v1/captures/${captureId}/status`, { token, from: '127.0.0.71' });
        assert.equal(status.status, 200, status.text);
        const download = await limited.call('GET', `/v1/captures/${captureId}/artifacts/wacz`, {
          token,
          from: '127.0.0.71',
        });
        assert.equal(download.status, 200, `download ${i}: ${download.status}`);
        const operator = await limited.call('GET', `/v1/admin/captures/${captureId}/retention`, {
          token: ADMIN_KEY,
          from: '127.0.0.71',
        });
        assert.equal(operator.status, 200, operator.text);
      }
      const anonymous: number[] = [];
      for (let i = 0; i < 8; i++)
        anonymous.push((await limited.call('GET', `/v1/captures/${captureId}/status`, { from: '127.0.0.72' })).status);
      assert.deepEqual(anonymous, [200, 200, 200, 200, 200, 429, 429, 429]);
    } finally {
      await limited.stop();
    }

    const raised = await admin('PUT', '/v1/admin/tenants/keep/retention', { days: 30, by: 'ops', reason: 'policy' });
    assert.equal(raised.status, 200, raised.text);
    const lowered = await admin('PUT', '/v1/admin/tenants/keep/retention', { days: 7, by: 'ops', reason: 'policy' });
    assert.equal(lowered.status, 200, lowered.text);
    assert.equal(lowered.body.days, 7);
    assert.equal(lowered.body.appliesTo, 'captures completed from now on');
    assert.match(lowered.body.detail, /lowered from 30 to 7 days for captures completed from now on/);
    assert.match(lowered.body.detail, /stored before stay retained/);
  });

  it('refuses a bucket without Object Lock while retention is configured, unless S3_ALLOW_UNLOCKED=true', async () => {
    await raw.send(new CreateBucketCommand({ Bucket: 'unlocked' }));
    const plain = { ...env, ROLES: 'api', S3_BUCKET: 'unlocked' };
    const fresh = await s.infra.freshDatabase();
    await assert.rejects(
      startTestServer({ ...plain, RETENTION_DEFAULT_DAYS: '30' }, { infra: s.infra, databaseUrl: fresh }),
      (err: Error) => {
        assert.equal(err.name, 'S3StartError');
        assert.match(err.message, /S3 bucket unlocked at http:\/\/127\.0\.0\.1:\d+ has no Object Lock/);
        assert.match(err.message, /S3_ALLOW_UNLOCKED=true/);
        return true;
      },
    );
    // A tenant's own retention (this deployment's: tenant keep) is retention configured too.
    await assert.rejects(startTestServer(plain, { infra: s.infra, databaseUrl: s.databaseUrl }), /has no Object Lock/);
    const allowed = await startTestServer(
      { ...plain, RETENTION_DEFAULT_DAYS: '30', S3_ALLOW_UNLOCKED: 'true' },
      { infra: s.infra, databaseUrl: fresh },
    );
    await allowed.stop();
  });

  it('wrong credentials stop the start naming endpoint, bucket, the S3 error code and the credential source', async () => {
    const wrong = settingsOf({ ...env, S3_SECRET_ACCESS_KEY: 'not-the-secret' });
    await assert.rejects(openS3ArtifactStore(wrong), (err: Error) => {
      assert.equal(err.name, 'S3StartError');
      assert.ok(err.message.includes(`S3 bucket ${BUCKET} at ${gw.endpoint}`), err.message);
      assert.match(err.message, /SignatureDoesNotMatch|InvalidAccessKeyId|AccessDenied/);
      assert.ok(err.message.includes(`S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY (access key ${gw.accessKeyId})`));
      assert.doesNotMatch(err.message, /UnknownError|not-the-secret/);
      return true;
    });
  });

  it('an outage: /health reports storage degraded, logged once naming the store, no presigned links, metrics', async () => {
    const logged: Array<{ level: string; msg: string }> = [];
    const log = {
      error: (_o: object, msg: string) => void logged.push({ level: 'error', msg }),
      info: (_o: object, msg: string) => void logged.push({ level: 'info', msg }),
    };
    const watched = await openS3ArtifactStore(settingsOf(env), { log });
    const healthy = await s.call('GET', '/health');
    assert.equal(healthy.status, 200);
    assert.equal(healthy.body.storage.status, 'ok');
    const redirect = await s.call('GET', `/v1/captures/${captures[0]}/artifacts/wacz`);
    assert.equal(redirect.status, 302, 'presigned while storage answers');

    await gw.stopGateway();
    let restarted = false;
    try {
      for (let i = 0; i < 3; i++)
        await assert.rejects(watched.get(`${captures[1]}/outage-probe`), StorageUnavailableError);
      for (let i = 0; ; i++) {
        const h = await s.call('GET', '/health');
        assert.equal(h.status, 200, 'an S3 outage keeps /health 200: NATS and Postgres answer');
        assert.equal(h.body.status, 'ok');
        if (h.body.storage.status === 'degraded') {
          assert.ok(h.body.storage.store.includes(`s3 bucket ${BUCKET} at ${gw.endpoint}`));
          assert.ok(h.body.storage.since);
          break;
        }
        assert.ok(i < 300, 'the outage shows in /health');
        await new Promise((r) => setTimeout(r, 200));
      }
      const down = await s.call('GET', `/v1/captures/${captures[0]}/artifacts/wacz`);
      assert.equal(down.status, 503, down.text);
      assert.ok(Number(down.headers.get('retry-after')) > 0);
      assert.equal(down.headers.get('location'), null);
      const errors = logged.filter((l) => l.level === 'error');
      assert.equal(errors.length, 1, JSON.stringify(logged));
      assert.ok(errors[0]!.msg.includes(`s3 bucket ${BUCKET} at ${gw.endpoint}`), errors[0]!.msg);
      const metrics = (await s.call('GET', '/metrics')).text;
      assert.match(metrics, /capture_ledger_storage_request_duration_seconds_bucket\{[^}]*operation="HeadBucket"/);
      assert.match(metrics, /capture_ledger_storage_requests_total\{[^}]*outcome="unavailable"[^}]*\} [1-9]/);
      assert.match(metrics, /capture_ledger_storage_pending_writes \d/);
      assert.match(metrics, /capture_ledger_storage_up 0/);
    } finally {
      if (!restarted) await gw.startGateway();
      restarted = true;
    }
    for (let i = 0; ; i++) {
      const h = await s.call('GET', '/health');
      if (h.body.storage.status === 'ok') break;
      assert.ok(i < 300, 'the recovery shows in /health');
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal((await s.call('GET', `/v1/captures/${captures[0]}/artifacts/wacz`)).status, 302);
    assert.equal(await watched.get(`${captures[1]}/none`), null);
    assert.equal(watched.health!().status, 'ok');
    assert.deepEqual(
      logged.map((l) => l.level),
      ['error', 'info'],
    );
  });
});
