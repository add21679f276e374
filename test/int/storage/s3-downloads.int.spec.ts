import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ArtifactStore } from '../../../src/storage/artifact-store.js';
import { openS3ArtifactStore } from '../../../src/storage/s3-artifact-store.js';
import { storageSettings } from '../../../src/config/storage-config.js';
import { artifactObjectName } from '../../../src/domain/artifacts.js';
import { newId } from '../../../src/domain/ids.js';
import { startInfra, type Infra } from '../../support/harness.js';
import { type Radosgw, startRadosgw } from '../../support/radosgw.js';
import { startTestServer, type TestServer } from '../../support/test-server.js';

const byOperator = { correlationId: 's3-downloads', causedBy: { kind: 'admin' as const } };

/**
 * The spec's downloads (4.8) with ARTIFACT_STORE=s3: streamed with byte ranges, or
 * redirected to a presigned link that serves the same; 503 with Retry-After while storage is down.
 */
describe('downloads from S3', () => {
  let gw: Radosgw;
  let infra: Infra;
  let streamed: TestServer;
  let redirected: TestServer;
  let store: ArtifactStore;
  let captureId: string;
  const bundle = new Uint8Array(700_000).map((_, k) => (k * 7 + 3) & 0xff);

  before(async () => {
    [gw, infra] = await Promise.all([startRadosgw(), startInfra()]);
    const env = {
      ARTIFACT_STORE: 's3' as const,
      S3_ENDPOINT: gw.endpoint,
      S3_BUCKET: 'capture-artifacts',
      S3_ACCESS_KEY_ID: gw.accessKeyId,
      S3_SECRET_ACCESS_KEY: gw.secretAccessKey,
    };
    const databaseUrl = await infra.freshDatabase();
    streamed = await startTestServer(env, { infra, databaseUrl });
    redirected = await startTestServer(
      { ...env, ROLES: 'api', S3_PRESIGNED_DOWNLOADS: 'true', S3_PRESIGN_SECONDS: '120' },
      { infra, databaseUrl },
    );
    const settings = storageSettings(env);
    assert.equal(settings.kind, 's3');
    store = await openS3ArtifactStore(settings as Extract<typeof settings, { kind: 's3' }>);
    captureId = newId('cap');
    const wacz = artifactObjectName(captureId, 'a1', 'wacz');
    await store.put(wacz, bundle);
    const tenants = streamed.server.ctx.tenants;
    await tenants.execute(
      'dl',
      {
        type: 'SubmitCaptures',
        data: { captures: [{ captureId, url: 'https://example.com/' }], source: 'single' },
      } as never,
      byOperator,
    );
    await tenants.execute(
      'dl',
      {
        type: 'CompleteCapture',
        data: {
          captureId,
          completedAt: new Date().toISOString(),
          renderQuality: 'full',
          render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 },
          artifacts: { wacz, screenshot: artifactObjectName(captureId, 'a1', 'screenshot'), html: 'h' },
          storedBytes: bundle.byteLength,
          attempts: 1,
        },
      } as never,
      byOperator,
    );
    for (let i = 0; i < 200; i++) {
      const st = await streamed.call('GET', `/v1/captures/${captureId}/status`);
      if (st.body?.status === 'complete') break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    await redirected?.stop();
    await streamed?.stop();
    await infra?.stop();
    await gw?.stop();
  });

  const url = (s: TestServer) => `${s.baseUrl}/v1/captures/${captureId}/artifacts/wacz`;

  it('streams the bundle and its byte ranges from S3 with the spec headers', async () => {
    const whole = await fetch(url(streamed));
    assert.equal(whole.status, 200);
    assert.equal(whole.headers.get('content-type'), 'application/wacz+zip');
    assert.equal(whole.headers.get('content-length'), String(bundle.byteLength));
    assert.ok(Buffer.from(await whole.arrayBuffer()).equals(Buffer.from(bundle)));
    const part = await fetch(url(streamed), { headers: { range: 'bytes=100000-100099' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 100000-100099/${bundle.byteLength}`);
    assert.ok(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(bundle.subarray(100000, 100100))));
    const beyond = await fetch(url(streamed), { headers: { range: `bytes=${bundle.byteLength}-` } });
    assert.equal(beyond.status, 416);
    assert.equal(beyond.headers.get('content-range'), `bytes */${bundle.byteLength}`);
    const head = await fetch(url(streamed), { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(bundle.byteLength));
    const shot = await fetch(`${streamed.baseUrl}/v1/captures/${captureId}/artifacts/screenshot`);
    assert.equal(shot.status, 500, 'an object the ledger names but storage lacks is the service’s loss');
  });

  it('with S3_PRESIGNED_DOWNLOADS redirects to a short-lived link serving the same bytes, ranges and headers', async () => {
    const first = await fetch(url(redirected), { redirect: 'manual' });
    assert.equal(first.status, 302);
    const location = first.headers.get('location') ?? '';
    assert.ok(location.startsWith(`${gw.endpoint}/capture-artifacts/blobs/sha256/`), location);
    assert.match(location, /X-Amz-Expires=120/);
    const part = await fetch(url(redirected), { headers: { range: 'bytes=0-99' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-type'), 'application/wacz+zip');
    assert.match(part.headers.get('content-disposition') ?? '', new RegExp(`${captureId}-bundle\\.wacz|${captureId}`));
    assert.ok(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(bundle.subarray(0, 100))));
  });

  it('answers 503 with Retry-After and the spec error body while storage is down, and serves again after', async () => {
    await gw.stopGateway();
    try {
      const down = await streamed.call('GET', `/v1/captures/${captureId}/artifacts/wacz`);
      assert.equal(down.status, 503, down.text);
      assert.ok(Number(down.headers.get('retry-after')) > 0);
      assert.equal(down.body.type, 'about:blank');
      assert.equal(down.body.status, 503);
      assert.match(down.body.detail, /Object storage is unavailable/);
    } finally {
      await gw.startGateway();
    }
    const back = await fetch(url(streamed), { headers: { range: 'bytes=0-9' } });
    assert.equal(back.status, 206);
  });
});
