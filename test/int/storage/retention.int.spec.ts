import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { openS3ArtifactStore } from '../../../src/storage/s3-artifact-store.js';
import { certificateObjectName } from '../../../src/evidence/certificate-storage.js';
import { type FixtureSite, captureUntilComplete, startFixtureSite } from '../../support/fixture-site.js';
import { type Radosgw, startRadosgw } from '../../support/radosgw.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../support/test-server.js';

const DAY_MS = 86_400_000;

/**
 * Retention and legal hold with S3 storage, through the service: a worker stores a tenant's
 * capture locked for its retention and says so in the provenance record; operators place and lift holds,
 * recorded with who and why; storage refuses shortening and the service says so; a capture submitted while
 * storage is down waits and completes once it is back.
 */
describe('retention and legal hold in S3', () => {
  let gw: Radosgw;
  let site: FixtureSite;
  let s: TestServer;
  let token: string;
  let captureId: string;
  const admin = (method: string, path: string, body?: unknown) =>
    s.call(method, path, { token: ADMIN_KEY, from: '127.0.0.60', ...(body ? { body } : {}) });

  before(async () => {
    [gw, site] = await Promise.all([startRadosgw(), startFixtureSite()]);
    s = await startTestServer({
      ROLES: 'api,projector,worker',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      CAPTURE_TIMEOUT_MS: '15000',
      WORKER_CONCURRENCY: '1',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      ARTIFACT_STORE: 's3',
      S3_ENDPOINT: gw.endpoint,
      S3_BUCKET: 'evidence',
      S3_ACCESS_KEY_ID: gw.accessKeyId,
      S3_SECRET_ACCESS_KEY: gw.secretAccessKey,
      RETENTION_DEFAULT_DAYS: '1',
    });
    const created = await admin('POST', '/v1/admin/keys', { tenantId: 'keep', scopes: ['capture', 'read'], name: 'r' });
    assert.equal(created.status, 201, created.text);
    token = created.body.key;
  });
  after(async () => {
    await s?.stop();
    await site?.close();
    await gw?.stop();
  });

  it("stores a tenant's capture under compliance retention and states it in the provenance record", async () => {
    const before = await admin('GET', '/v1/admin/tenants/keep/retention');
    assert.deepEqual(before.body, { tenantId: 'keep', days: 1, source: 'default', defaultDays: 1, locked: true });
    const set = await admin('PUT', '/v1/admin/tenants/keep/retention', {
      days: 2555,
      by: 'records@example.com',
      reason: 'seven years, SEC 17a-4',
    });
    assert.equal(set.status, 200, set.text);
    const { appliesTo, detail, ...view } = set.body;
    assert.deepEqual(view, { tenantId: 'keep', days: 2555, source: 'tenant', defaultDays: 1, locked: true });
    assert.equal(appliesTo, 'captures completed from now on');
    assert.match(detail, /from now on/);

    captureId = await captureUntilComplete(s.call, token, site.url('/simple'));
    const prov = await s.call('GET', `/v1/captures/${captureId}/provenance`);
    assert.equal(prov.status, 200, prov.text);
    const { retention } = prov.body;
    assert.equal(retention.mode, 'compliance');
    assert.equal(retention.storage, 'S3 Object Lock');
    const expected = Date.parse(prov.body.completedAt) + 2555 * DAY_MS;
    assert.equal(Date.parse(retention.retainUntil), expected);

    const state = await admin('GET', `/v1/admin/captures/${captureId}/retention`);
    assert.equal(state.status, 200, state.text);
    assert.equal(state.body.storage, 's3');
    assert.equal(state.body.retainUntil, retention.retainUntil, 'storage holds the date the record states');
    assert.deepEqual(state.body.legalHold, { active: false });

    const certificate = await fetch(`${s.baseUrl}/v1/captures/${captureId}/certificate`);
    assert.equal(certificate.status, 200);
    const dir = await mkdtemp(join(tmpdir(), 'cl-cert-'));
    try {
      const file = join(dir, 'c.pdf');
      await writeFile(file, Buffer.from(await certificate.arrayBuffer()));
      const text = (await promisify(execFile)('pdftotext', [file, '-'])).stdout.replace(/\s+/g, ' ');
      assert.match(text, /Retention in storage/);
      assert.ok(text.includes(retention.retainUntil), 'the certificate states the retain-until date');
      // Issued once, kept in S3 beside the capture's objects, and served as stored.
      const store = await openS3ArtifactStore({
        endpoint: gw.endpoint,
        region: gw.region,
        bucket: 'evidence',
        forcePathStyle: true,
        credentials: { accessKeyId: gw.accessKeyId, secretAccessKey: gw.secretAccessKey },
        presignedDownloads: false,
        presignSeconds: 60,
      });
      const kept = await store.get(certificateObjectName(captureId));
      assert.ok(kept && Buffer.from(kept).equals(await readFile(file)), 'the certificate is stored in S3');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses shortening the retention (storage says no, the service says so); extends it', async () => {
    const shorter = await admin('PUT', `/v1/admin/captures/${captureId}/retention`, {
      retainUntil: new Date(Date.now() + DAY_MS).toISOString(),
      by: 'someone',
      reason: 'make room',
    });
    assert.equal(shorter.status, 409, shorter.text);
    assert.equal(shorter.body.type, 'about:blank');
    assert.match(shorter.body.detail, /Storage refused.*compliance mode.*nobody can shorten/);
    const later = new Date(Date.now() + 3000 * DAY_MS).toISOString();
    const longer = await admin('PUT', `/v1/admin/captures/${captureId}/retention`, {
      retainUntil: later,
      by: 'records@example.com',
      reason: 'litigation expected',
    });
    assert.equal(longer.status, 200, longer.text);
    assert.equal(longer.body.retainUntil, later);
  });

  it('places and lifts a legal hold, recorded with who and why', async () => {
    const placed = await admin('PUT', `/v1/admin/captures/${captureId}/legal-hold`, {
      active: true,
      by: 'counsel@example.com',
      reason: 'Case 24-cv-0113',
    });
    assert.equal(placed.status, 200, placed.text);
    assert.equal(placed.body.legalHold.active, true);
    assert.equal(placed.body.legalHold.by, 'counsel@example.com');
    assert.equal(placed.body.legalHold.reason, 'Case 24-cv-0113');
    const lifted = await admin('PUT', `/v1/admin/captures/${captureId}/legal-hold`, {
      active: false,
      by: 'counsel@example.com',
      reason: 'case closed',
    });
    assert.equal(lifted.body.legalHold.active, false);
    assert.equal(lifted.body.legalHold.reason, 'case closed');
    const types: string[] = [];
    await s.server.store!.replay(1, async (e) => {
      if (e.event.type.startsWith('capture.legal_hold') || e.event.type === 'tenant.retention_set')
        types.push(`${e.event.type} ${(e.event.data as { by: string }).by}`);
    });
    assert.deepEqual(types, [
      'tenant.retention_set records@example.com',
      'capture.legal_hold_placed counsel@example.com',
      'capture.legal_hold_lifted counsel@example.com',
    ]);
    const bad = await admin('PUT', `/v1/admin/captures/${captureId}/legal-hold`, { active: true, reason: 'x' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.detail, /by/);
  });

  it('storage down mid-run: a capture waits (not failed) and completes when storage is back; reads answer 503', async () => {
    await gw.stopGateway();
    let restarted = false;
    try {
      const submitted = await s.call('POST', '/v1/captures', { token, body: { url: site.url('/simple') } });
      assert.equal(submitted.status, 202, submitted.text);
      const down = await s.call('GET', `/v1/captures/${captureId}/artifacts/wacz`);
      assert.equal(down.status, 503, down.text);
      assert.ok(Number(down.headers.get('retry-after')) > 0);
      // The page renders, then storing waits: still pending after a while, never failed.
      await new Promise((r) => setTimeout(r, 8000));
      const waiting = await s.call('GET', `/v1/captures/${submitted.body.id}/status`);
      assert.equal(waiting.body.status, 'pending', waiting.text);
      await gw.startGateway();
      restarted = true;
      for (let i = 0; ; i++) {
        const st = await s.call('GET', `/v1/captures/${submitted.body.id}/status`);
        if (st.body.status === 'complete') break;
        assert.notEqual(st.body.status, 'failed', st.text);
        assert.ok(i < 600, 'the capture completes once storage is back');
        await new Promise((r) => setTimeout(r, 200));
      }
      const bundle = await fetch(`${s.baseUrl}/v1/captures/${submitted.body.id}/artifacts/wacz`);
      assert.equal(bundle.status, 200);
    } finally {
      if (!restarted) await gw.startGateway();
    }
  });
});
