import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../support/test-server.js';
import {
  type CallerSite,
  startCallerSite,
  startUpstreamProxy,
  type UpstreamProxy,
} from '../support/vantage-fixtures.js';

/**
 * Vantage points through the whole service (issue 33 §1, §4): two upstream proxies exiting from 127.0.0.10
 * (HTTP CONNECT) and 127.0.0.11 (SOCKS5), a site that answers by the caller's address, and a third vantage
 * whose proxy is stopped.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('vantage points: listed, chosen per capture, named in the signed provenance', () => {
  let s: TestServer;
  let site: CallerSite;
  let ten: UpstreamProxy;
  let eleven: UpstreamProxy;
  let stopped: UpstreamProxy;
  let token: string;

  async function settle(id: string): Promise<any> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const st = await s.call('GET', `/v1/captures/${id}/status`);
      if (st.body.status === 'failed') return st.body;
      if (st.body.status === 'complete') return (await s.call('GET', `/v1/captures/${id}`)).body;
      if (Date.now() > deadline) throw new Error(`capture ${id} still pending`);
      await sleep(200);
    }
  }

  async function capture(url: string, options: Record<string, unknown>): Promise<any> {
    const r = await s.call('POST', '/v1/captures', { token, body: { url, options } });
    assert.equal(r.status, 202, r.text);
    return settle(r.body.id);
  }

  before(async () => {
    site = await startCallerSite();
    ten = await startUpstreamProxy('http', '127.0.0.10');
    eleven = await startUpstreamProxy('socks5', '127.0.0.11');
    stopped = await startUpstreamProxy('http', '127.0.0.12');
    const vantages = [
      {
        id: 'de-ten',
        label: 'Frankfurt (test, 127.0.0.10)',
        region: 'DE',
        upstream: ten.url.replace('http://', 'http://user:hunter2-secret@'),
        exitProbeUrl: site.url('/whoami'),
      },
      {
        id: 'fr-eleven',
        label: 'Paris (test, 127.0.0.11)',
        region: 'FR',
        upstream: eleven.url,
        exitProbeUrl: site.url('/whoami'),
      },
      { id: 'se-down', label: 'Stockholm (stopped)', region: 'SE', upstream: stopped.url },
    ];
    await stopped.close();
    s = await startTestServer({
      ROLES: 'api,projector,worker',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      CAPTURE_TIMEOUT_MS: '8000',
      WORKER_CONCURRENCY: '2',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      VANTAGES: JSON.stringify(vantages),
    });
    const created = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'vantages', scopes: ['capture', 'read'], name: 'vantages e2e' },
    });
    assert.equal(created.status, 201, created.text);
    token = created.body.key;
  });

  after(async () => {
    await s?.stop();
    await Promise.all([site?.close(), ten?.close(), eleven?.close()]);
  });

  it('lists the vantages without their proxies or credentials', async () => {
    const r = await s.call('GET', '/v1/vantages', { token });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.vantages.map((v: any) => [v.id, v.region, v.upstreamKind, v.exitObserved]),
      [
        ['de-ten', 'DE', 'http-connect', true],
        ['fr-eleven', 'FR', 'socks5', true],
        ['se-down', 'SE', 'http-connect', false],
      ],
    );
    assert.doesNotMatch(r.text, /hunter2|127\.0\.0\.1:/);
    assert.equal((await s.call('GET', '/v1/vantages')).status, 401);
  });

  it('refuses an unknown vantage with 422 listing the valid ones, and admits nothing', async () => {
    const r = await s.call('POST', '/v1/captures', {
      token,
      body: { url: site.url('/by-caller'), options: { vantage: 'mars' } },
    });
    assert.equal(r.status, 422, r.text);
    assertProblem(r.body, 422);
    assert.match(r.body.detail, /mars/);
    assert.match(r.body.detail, /de-ten, fr-eleven, se-down/);
    const batch = await s.call('POST', '/v1/captures/batch', {
      token,
      body: { urls: [{ url: site.url('/by-caller'), options: { vantage: 'mars' } }] },
    });
    assert.equal(batch.status, 207, batch.text);
    assert.equal(batch.body.items[0].status, 422);
    assert.match(batch.body.items[0].error.detail, /urls\[0\]\.options\.vantage/);
    const list = await s.call('GET', '/v1/captures', { token });
    assert.equal(list.body.data?.length ?? list.body.items?.length ?? 0, 0);
  });

  it('captures from the chosen vantage: the page it saw, the exit observed, in the signed provenance', async () => {
    for (const [id, exit] of [
      ['de-ten', '127.0.0.10'],
      ['fr-eleven', '127.0.0.11'],
    ] as const) {
      const rec = await capture(site.url('/by-caller'), { vantage: id });
      assert.equal(rec.status, 'complete', JSON.stringify(rec));
      const html = await s.call('GET', `/v1/captures/${rec.id}/artifacts/html`);
      assert.match(html.text, new RegExp(`Seen from ${exit.replaceAll('.', '\\.')}`));
      const p = await s.call('GET', `/v1/captures/${rec.id}/provenance`);
      assert.equal(p.status, 200, p.text);
      assert.equal(p.body.vantage.id, id);
      assert.equal(p.body.vantage.exit.observedAddress, exit);
      assert.equal(p.body.vantage.exit.method, 'exit-probe');
      assert.ok(p.body.connections.length > 0);
      assert.deepEqual(
        p.body.dns.map((d: any) => [d.source, d.name]),
        [['ip-literal', '127.0.0.1']],
      );
      assert.doesNotMatch(p.text, /hunter2/);
      // The signed bundle holds the same record.
      const wacz = await s.call('GET', `/v1/captures/${rec.id}/artifacts/wacz`);
      const signed = JSON.parse(
        new TextDecoder().decode(unzipSync(new Uint8Array(wacz.raw))['provenance/provenance.json']!),
      );
      assert.deepEqual(signed.vantage, p.body.vantage);
      const readable = await s.call('GET', `/v1/captures/${rec.id}/provenance`, { headers: { accept: 'text/html' } });
      assert.match(readable.text, new RegExp(`${id}.*${exit.replaceAll('.', '\\.')}`, 's'));
      // The certificate states it too.
      const certificate = await s.call('GET', `/v1/captures/${rec.id}/certificate`);
      assert.equal(certificate.status, 200, certificate.text.slice(0, 300));
      const dir = await mkdtemp(join(tmpdir(), 'cl-vcert-'));
      try {
        await writeFile(join(dir, 'c.pdf'), certificate.raw);
        const { stdout } = await promisify(execFile)('pdftotext', [join(dir, 'c.pdf'), '-']);
        const flat = stdout.replace(/\s+/g, ' ');
        assert.match(flat, new RegExp(`vantage point: ${id}`));
        assert.match(flat, new RegExp(`exit address ${exit.replaceAll('.', '\\.')} as observed`));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
    // A capture without a vantage leaves directly: the site sees the worker itself.
    const direct = await capture(site.url('/by-caller'), {});
    assert.match((await s.call('GET', `/v1/captures/${direct.id}/artifacts/html`)).text, /Seen from 127\.0\.0\.1</);
    const p = await s.call('GET', `/v1/captures/${direct.id}/provenance`);
    assert.equal(p.body.vantage, undefined);
  });

  it('a vantage whose proxy is stopped fails the capture as vantage_unavailable, never direct', async () => {
    const rec = await capture(site.url('/by-caller'), { vantage: 'se-down' });
    assert.equal(rec.status, 'failed');
    assert.equal(rec.failureReason, 'vantage_unavailable', JSON.stringify(rec));
    assert.match(rec.error, /se-down/);
    assert.equal(rec.retryable, true);
  });
});
