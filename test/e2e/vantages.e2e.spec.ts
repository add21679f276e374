import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import {
  canonicalJson,
  keysFromDocument,
  parseCheckpointNote,
  tsaCertificatesFromDocument,
  verifyCorroboration,
} from '../../packages/verifier/src/index.js';
import { captureIdHash, decodeLeaf } from '../../src/transparency/leaf.js';
import { createLogClient } from '../../src/transparency/log-client.js';
import { cli } from '../int/cli/cli-fixtures.js';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../support/test-server.js';
import {
  type CallerSite,
  type LoopbackVantages,
  startLoopbackVantages,
  startUpstreamProxy,
} from '../support/vantage-fixtures.js';

/**
 * Vantage points through the whole service: two upstream proxies exiting from 127.0.0.10
 * (HTTP CONNECT) and 127.0.0.11 (SOCKS5), a site that answers by the caller's address, and a third vantage
 * whose proxy is stopped. One worker process: every corroborated set still completes, and its record names
 * `workers` (test/e2e/corroboration-workers.e2e.spec.ts runs two, where the members land on distinct workers).
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('vantage points: listed, chosen per capture, named in the signed provenance', () => {
  let s: TestServer;
  let loopback: LoopbackVantages;
  let site: CallerSite;
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
    loopback = await startLoopbackVantages();
    site = loopback.site;
    // A third vantage whose proxy is stopped before the service starts.
    const stopped = await startUpstreamProxy('http', '127.0.0.12');
    const vantages = [
      ...loopback.vantages,
      { id: 'se-down', label: 'Stockholm (stopped)', region: 'SE', upstream: stopped.url },
    ];
    await stopped.close();
    s = await startTestServer({
      ROLES: 'api,projector,worker,sequencer',
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
    await loopback?.close();
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

  async function corroborated(url: string, options: Record<string, unknown>): Promise<{ accepted: any; answer: any }> {
    const r = await s.call('POST', '/v1/captures', { token, body: { url, options } });
    assert.equal(r.status, 202, r.text);
    const deadline = Date.now() + 180_000;
    for (;;) {
      const c = await s.call('GET', `/v1/captures/${r.body.id}/corroboration`);
      assert.equal(c.status, 200, c.text);
      if (c.body.status === 'complete') return { accepted: r.body, answer: c.body };
      if (Date.now() > deadline) throw new Error(`corroboration ${c.body.id} still pending: ${c.text}`);
      await sleep(300);
    }
  }

  it('a corroborated capture of a stable page on one worker: one capture per vantage, each counted, DIVERGE on workers alone, signed and time-stamped', async () => {
    const usedBefore = (await s.call('GET', '/v1/account/usage', { token })).body;
    const { accepted, answer } = await corroborated(site.url('/stable'), { corroborate: 2 });
    assert.deepEqual(
      accepted.corroboration.members.map((m: any) => m.vantage),
      ['de-ten', 'fr-eleven'],
    );
    // Everything the members saw agrees; one worker process rendered both, so the record cannot say AGREE.
    assert.equal(answer.record.verdict, 'DIVERGE', JSON.stringify(answer.record, null, 1));
    const expected = differingBesideWindow(answer.record, ['workers']);
    assert.deepEqual(answer.record.differing, expected);
    assert.deepEqual(
      answer.record.members.map((m: any) => [m.vantage.id, m.exitAddress, m.status]),
      [
        ['de-ten', '127.0.0.10', 'complete'],
        ['fr-eleven', '127.0.0.11', 'complete'],
      ],
    );
    assert.equal(answer.record.comparisons.resources.overlap, 1);
    // One worker process here: it gave the second member back for a while (no other worker took it), then
    // rendered it, well within the window; the record says the members were not rendered by distinct workers.
    assert.match(answer.record.members[0].worker, /^wrk_[0-9a-f]{16}$/);
    assert.equal(answer.record.members[1].worker, answer.record.members[0].worker);
    assert.equal(answer.record.window.distinctWorkers, false);
    assert.equal(answer.record.window.startedWithin, true);
    assert.ok(answer.record.window.spreadMs <= answer.record.window.ms, JSON.stringify(answer.record.window));
    for (const [name, c] of Object.entries(answer.record.comparisons)) assert.equal((c as any).agree, true, name);
    assert.ok(answer.record.comparisons.screenshots.pairs[0].pixelAgreement >= 0.98);
    assert.match(answer.recordHash, /^sha256:[0-9a-f]{64}$/);
    assert.equal(answer.signature.algorithm, 'Ed25519');
    assert.ok(answer.timestamp?.token, 'time-stamped by the TSA');
    // Logged like a bundle: a 'corroboration' leaf naming the record's hash and the hash of the set's id.
    const log = createLogClient(`${s.baseUrl}/v1/log`);
    let leaf: unknown;
    for (const deadline = Date.now() + 120_000; !leaf && Date.now() < deadline; ) {
      const note = await log.checkpoint().catch(() => null);
      const size = note ? parseCheckpointNote(note).size : 0;
      const entries = size ? await log.entries(0, Math.min(size, 256)) : [];
      leaf = entries.map((e) => decodeLeaf(e)).find((l) => l.kind === 'corroboration');
      if (!leaf) await new Promise((r) => setTimeout(r, 250));
    }
    assert.deepEqual(leaf, {
      v: 1,
      kind: 'corroboration',
      corroborationIdHash: captureIdHash(answer.id),
      recordHash: answer.recordHash,
      keyId: answer.signature.keyId,
      genTime: answer.timestamp.genTime,
    });
    // Each member is a capture of the quota.
    const usedAfter = (await s.call('GET', '/v1/account/usage', { token })).body;
    assert.equal(capturesUsed(usedAfter) - capturesUsed(usedBefore), 2);
    // The member's certificate names the set's verdict, why, the vantages with their exits, and the record's hash.
    const certificate = await s.call('GET', `/v1/captures/${accepted.id}/certificate`);
    assert.equal(certificate.status, 200);
    const certDir = await mkdtemp(join(tmpdir(), 'cl-vcert-'));
    try {
      await writeFile(join(certDir, 'c.pdf'), certificate.raw);
      const { stdout } = await promisify(execFile)('pdftotext', [join(certDir, 'c.pdf'), '-']);
      const flat = stdout.replace(/\s+/g, ' ');
      assert.match(flat, new RegExp(`corroborated set ${answer.id}`));
      assert.match(flat, new RegExp(`Verdict DIVERGE — differing: ${expected.join(', ')} \\(`));
      assert.match(
        flat,
        /\(this capture\): de-ten, Frankfurt \(test, 127\.0\.0\.10\) \(DE\); exit address 127\.0\.0\.10/,
      );
      assert.match(flat, /fr-eleven, Paris \(test, 127\.0\.0\.11\) \(FR\); exit address 127\.0\.0\.11/);
      assert.ok(flat.includes(answer.recordHash), 'the record hash');
    } finally {
      await rm(certDir, { recursive: true, force: true });
    }
    // A member's record names its set; asking again answers the same signed bytes.
    const rec = await s.call('GET', `/v1/captures/${accepted.id}`);
    assert.equal(rec.body.corroboration.id, answer.id);
    const again = await s.call('GET', `/v1/captures/${accepted.corroboration.members[1].id}/corroboration`);
    assert.equal(again.body.recordHash, answer.recordHash);
    // Offline, with nothing but the published keys and TSA certificates: it verifies; a turned verdict does not.
    const keys = keysFromDocument((await s.call('GET', '/.well-known/signing-keys')).body, 'keys');
    const tsa = tsaCertificatesFromDocument((await s.call('GET', '/.well-known/tsa-certificates')).body, 'tsa');
    const trust = { keys, tsaCaCertsPem: tsa, selfIssuedTsaCaCertsPem: tsa };
    const verified = await verifyCorroboration(answer, trust);
    assert.equal(verified.verified, true, JSON.stringify(verified.checks));
    assert.deepEqual(
      verified.checks.map((c) => [c.name, c.status]),
      [
        ['format', 'pass'],
        ['recordHash', 'pass'],
        ['signature', 'pass'],
        ['timestamp', 'pass'],
      ],
    );
    assert.equal(verified.corroboration?.verdict, 'DIVERGE');
    assert.deepEqual(verified.corroboration?.differing, expected);
    const tampered = structuredClone(answer);
    tampered.record.verdict = 'AGREE';
    tampered.record.differing = [];
    const refused = await verifyCorroboration(tampered, trust);
    assert.equal(refused.verified, false);
    assert.equal(refused.checks.find((c) => c.name === 'recordHash')?.status, 'fail');
    const forged = {
      ...tampered,
      recordHash: `sha256:${createHash('sha256').update(canonicalJson(tampered.record)).digest('hex')}`,
    };
    assert.equal(
      (await verifyCorroboration(forged, trust)).verified,
      false,
      'a re-hashed record is not what was signed',
    );
    assert.equal((await verifyCorroboration(answer, { keys: [], tsaCaCertsPem: tsa })).verified, false);
    // The CLI: `capture-ledger verify record.json` with the published keys and TSA certificates.
    const dir = await mkdtemp(join(tmpdir(), 'cl-vcor-'));
    try {
      await writeFile(join(dir, 'record.json'), JSON.stringify(answer));
      await writeFile(join(dir, 'tampered.json'), JSON.stringify(tampered));
      const trustArgs = [
        '--keys-url',
        `${s.baseUrl}/.well-known/signing-keys`,
        '--tsa-ca-url',
        `${s.baseUrl}/.well-known/tsa-certificates`,
      ];
      const ok = await cli(['verify', join(dir, 'record.json'), ...trustArgs], {});
      assert.equal(ok.code, 0, ok.stdout + ok.stderr);
      assert.equal(JSON.parse(ok.stdout).corroboration.verdict, 'DIVERGE');
      const bad = await cli(['verify', join(dir, 'tampered.json'), ...trustArgs], {});
      assert.equal(bad.code, 1, bad.stdout + bad.stderr);
      assert.equal(JSON.parse(bad.stdout).verified, false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a corroborated capture of the address-varying page: DIVERGE naming the text and the pixels', async () => {
    const { answer } = await corroborated(site.url('/by-caller'), { corroborate: 2, vantage: 'fr-eleven' });
    assert.equal(answer.record.verdict, 'DIVERGE');
    assert.ok(answer.record.differing.includes('visibleText'), answer.record.differing);
    assert.ok(answer.record.differing.includes('screenshots'), answer.record.differing);
    assert.deepEqual(
      answer.record.members.map((m: any) => m.vantage.id),
      ['fr-eleven', 'de-ten'],
    );
    const blocks = answer.record.comparisons.visibleText.differingBlocks.map((b: any) => b.block);
    assert.ok(blocks.includes('Seen from 127.0.0.10') && blocks.includes('Seen from 127.0.0.11'), blocks);
    assert.ok(answer.record.comparisons.screenshots.pairs[0].pixelAgreement < 0.5);
    // The verify page of a member shows the verdict.
    const page = await s.call('GET', `/v1/verify/${answer.record.members[0].captureId}`, {
      headers: { accept: 'text/html' },
    });
    assert.equal(page.status, 200);
    assert.match(page.text, /<h2>Corroboration<\/h2>/);
    assert.match(
      page.text,
      /<strong>DIVERGE<\/strong> — differing: (window, )?workers, visibleText, [a-zA-Z, ]*screenshots/,
    );
  });

  it('a member that fails makes the record say so', async () => {
    const { answer } = await corroborated(site.url('/stable'), { corroborate: 3 });
    assert.equal(answer.record.verdict, 'DIVERGE');
    assert.deepEqual(answer.record.differing, differingBesideWindow(answer.record, ['members', 'workers']));
    const failed = answer.record.members.find((m: any) => m.status === 'failed');
    assert.equal(failed.vantage.id, 'se-down');
    assert.equal(failed.failureReason, 'vantage_unavailable');
    assert.deepEqual(answer.record.failedMembers, [failed.captureId]);
  });

  it('a corroborated capture needing more captures than the quota has left is refused whole', async () => {
    const key = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'tight', scopes: ['capture', 'read'], name: 'tight quota' },
    });
    assert.equal(key.status, 201, key.text);
    const config = await s.call('PUT', '/v1/admin/tenants/tight/config', {
      token: ADMIN_KEY,
      body: { quotas: { capturesPerMonth: 1 } },
    });
    assert.ok(config.status < 300, config.text);
    const r = await s.call('POST', '/v1/captures', {
      token: key.body.key,
      body: { url: site.url('/stable'), options: { corroborate: 2 } },
    });
    assert.equal(r.status, 429, r.text);
    assert.equal(r.body.limitType, 'quota');
    const usage = await s.call('GET', '/v1/account/usage', { token: key.body.key });
    assert.equal(capturesUsed(usage.body), 0, 'nothing admitted');
  });

  it('refuses corroborate beyond the vantages configured, out of range, in a batch and for a schedule', async () => {
    const many = await s.call('POST', '/v1/captures', {
      token,
      body: { url: site.url('/stable'), options: { corroborate: 3, vantage: 'mars' } },
    });
    assert.equal(many.status, 422);
    assertProblem(many.body, 422);
    const bad = await s.call('POST', '/v1/captures', {
      token,
      body: { url: site.url('/stable'), options: { corroborate: 4 } },
    });
    assert.equal(bad.status, 400);
    assertProblem(bad.body, 400);
    const batch = await s.call('POST', '/v1/captures/batch', {
      token,
      body: { urls: [{ url: site.url('/stable'), options: { corroborate: 2 } }] },
    });
    assert.equal(batch.body.items[0].status, 422);
    const schedule = await s.call('POST', '/v1/schedules', {
      token,
      body: { url: site.url('/stable'), name: 'corroborated', cron: '0 * * * *', options: { corroborate: 2 } },
    });
    assert.equal(schedule.status, 422, schedule.text);
  });
});

/** Captures counted this period, from GET /v1/account/usage (spec 2.11). */
/**
 * The fields a record must name as differing: `fields`, and `window` too when its members' browsers started further
 * apart than the corroboration window (one worker renders them one after another, which on a busy host can take
 * longer than the window). The record states that itself in `window.startedWithin`.
 */
function differingBesideWindow(record: any, fields: string[]): string[] {
  const order = ['members', 'window', 'workers'];
  const named = record.window.startedWithin ? fields : [...fields, 'window'];
  return order.filter((f) => named.includes(f));
}

function capturesUsed(usage: any): number {
  return usage.captures.used;
}
