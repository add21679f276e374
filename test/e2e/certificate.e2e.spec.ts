import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { projectRoot } from '../../src/infra/project-root.js';
import { splitCertificate } from '../../packages/verifier/src/index.js';
import { captureUntilComplete, type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { certificateIssuedAt, freshCertificates } from '../support/logged-capture.js';
import { cliArgs } from '../support/service-entry.js';
import { assertProblem, httpCall, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * The capture certificate (docs/evidence.md, The certificate a reader gets) through the real service: a capture of a loopback page, its PDF
 * rendered by poppler (pdftotext, pdftoppm) and read back, the same bytes on every request, the attachment
 * poppler lists, and the certificate's own signature checked by the operator CLI and by POST /v1/verify/certificate
 * — and refused once altered or appended to.
 */

const run = (file: string, args: string[], opts: { cwd?: string; encoding?: 'buffer' } = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      file,
      args,
      { cwd: opts.cwd ?? projectRoot, timeout: 120_000, maxBuffer: 32 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({
          code: err ? ((err as { code?: number }).code ?? 1) : 0,
          stdout: String(stdout),
          stderr: String(stderr),
        }),
    );
  });

describe('capture certificate (PDF)', () => {
  let s: TestServer;
  let site: FixtureSite;
  let dir: string;
  let captureId: string;
  let record: any;
  let pdf: Buffer;
  const seed = randomBytes(32).toString('base64');

  before(async () => {
    site = await startFixtureSite();
    dir = await mkdtemp(join(tmpdir(), 'cl-certificate-'));
    // The built-in TSA (TSA_URL empty), a worker with the signer role (SIGNER=local).
    s = await startTestServer({
      ROLES: 'api,projector,worker,signer',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      SIGNING_KEY: seed,
      TSA_URL: '',
      CAPTURE_TIMEOUT_MS: '20000',
      WORKER_CONCURRENCY: '1',
    });
    const admin = await s.call('POST', '/v1/admin/keys', {
      token: 'test-admin-key-0123456789',
      body: { tenantId: 'cert', scopes: ['capture'], name: 'cert' },
    });
    assert.equal(admin.status, 201, admin.text);
    captureId = await captureUntilComplete(s.call, admin.body.key, site.url('/simple'));
    record = (await s.call('GET', `/v1/captures/${captureId}`)).body;
  });

  after(async () => {
    await s?.stop();
    await site?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('GET …/certificate answers a PDF, the same bytes every time, readable by any origin', async () => {
    const first = await s.call('GET', `/v1/captures/${captureId}/certificate`, {
      headers: { origin: 'https://court.example' },
    });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers.get('content-type'), 'application/pdf');
    assert.equal(first.headers.get('access-control-allow-origin'), '*');
    assert.match(first.headers.get('cache-control') ?? '', /immutable/);
    assert.match(
      first.headers.get('content-disposition') ?? '',
      new RegExp(`attachment; filename="${captureId}-certificate.pdf"`),
    );
    pdf = first.raw;
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    const again = await s.call('GET', `/v1/captures/${captureId}/certificate`);
    assert.equal(again.status, 200);
    assert.ok(again.raw.equals(pdf), 'a second request gave other bytes');
    await writeFile(join(dir, 'certificate.pdf'), pdf);
  });

  it('the same capture renders the same document: made afresh without the stored copy, the signed bytes are identical', async () => {
    const certificates = await freshCertificates(s.server, seed, undefined, certificateIssuedAt(pdf));
    const remade = await certificates.certificate(captureId);
    assert.ok(remade);
    assert.ok(Buffer.from(splitCertificate(remade).document).equals(Buffer.from(splitCertificate(pdf).document)));
  });

  it('poppler shows what was captured, how, every hash, the signature, the timestamp, the verification URL and the declaration', async () => {
    const text = await run('pdftotext', ['-layout', join(dir, 'certificate.pdf'), '-']);
    assert.equal(text.code, 0, text.stderr);
    const flat = text.stdout.replace(/\s+/g, ' ');
    const bundle = await s.call('GET', `/v1/verify/${captureId}`);
    assert.equal(bundle.status, 200);
    for (const expected of [
      'Certificate of a Web Capture',
      captureId,
      site.url('/simple'),
      'Main document HTTP status 200',
      'Chromium',
      'Egress policy',
      record.wacz.bundleHash,
      bundle.body.signing.keyId,
      bundle.body.signing.publicKey,
      bundle.body.signing.signature,
      bundle.body.signing.timestamp.genTime,
      'Built-in TSA yes',
      `/v1/verify/${captureId}`,
      'Declaration of the custodian',
      'Signature:',
    ]) {
      assert.ok(flat.includes(expected), `the certificate does not show ${expected}:\n${text.stdout}`);
    }
    const hashes = flat.match(/sha256:[0-9a-f]{64}/g) ?? [];
    assert.ok(hashes.length >= 8, `only ${hashes.length} hashes shown`);

    const png = await run('pdftoppm', ['-png', '-r', '60', join(dir, 'certificate.pdf'), join(dir, 'page')]);
    assert.equal(png.code, 0, png.stderr);
    const pages = (await readdir(dir)).filter((name) => name.startsWith('page') && name.endsWith('.png')).sort();
    assert.ok(pages.length >= 1 && pages.length <= 4, `pages: ${pages.join(', ')}`);
    const image = PNG.sync.read(await readFile(join(dir, pages[0]!)));
    let dark = 0;
    for (let i = 0; i < image.data.length; i += 4) if (image.data[i]! < 100) dark++;
    assert.ok(dark > 2000, `page 1 rendered almost blank (${dark} dark pixels)`);

    const attachments = await run('pdfdetach', ['-list', join(dir, 'certificate.pdf')]);
    assert.equal(attachments.code, 0, attachments.stderr);
    assert.match(attachments.stdout, /certificate-signature\.json/);
  });

  it('the operator CLI verifies the certificate with the published keys and TSA certificates', async () => {
    const args = [
      ...cliArgs(),
      'verify',
      join(dir, 'certificate.pdf'),
      '--keys-url',
      `${s.baseUrl}/.well-known/signing-keys`,
      '--tsa-ca-url',
      `${s.baseUrl}/.well-known/tsa-certificates`,
    ];
    const r = await run(process.execPath, args);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const result = JSON.parse(r.stdout);
    assert.equal(result.kind, 'certificate');
    assert.equal(result.verified, true);
    assert.deepEqual(
      result.checks.map((c: { name: string; status: string }) => `${c.name}:${c.status}`),
      ['envelope:pass', 'certificateHash:pass', 'signature:pass', 'timestamp:pass', 'url:pass', 'pdfSignature:pass'],
    );
    assert.equal(result.certificate.captureId, captureId);
    assert.equal(result.signing.timestamp.selfIssued, true);
  });

  it('POST /v1/verify/certificate passes the certificate and fails it once altered or appended to', async () => {
    const post = (body: Buffer, type = 'application/pdf') =>
      httpCall(`${s.baseUrl}/v1/verify/certificate`, 'POST', { 'content-type': type }, body);
    const ok = await post(pdf);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.verified, true, JSON.stringify(ok.body.checks));
    assert.deepEqual(
      ok.body.checks.map((c: { name: string }) => c.name),
      ['envelope', 'certificateHash', 'signature', 'timestamp', 'url', 'pdfSignature', 'capture'],
    );

    // One character of the rendered text changed: the document no longer has the signed hash.
    const altered = Buffer.from(pdf);
    const at = altered.indexOf('/Title');
    assert.ok(at > 0);
    altered[at + 1] = 'S'.charCodeAt(0);
    const a = await post(altered);
    assert.equal(a.status, 200);
    assert.equal(a.body.verified, false);
    assert.equal(a.body.checks.find((c: { name: string }) => c.name === 'certificateHash').status, 'fail');

    // A later incremental update (what an editor appends) is refused: only the signature's update may follow.
    const appended = Buffer.concat([pdf, Buffer.from('1 0 obj\n<< >>\nendobj\n%%EOF\n')]);
    const b = await post(appended);
    assert.equal(b.body.verified, false);
    assert.equal(b.body.checks[0].status, 'fail');

    const wrongType = await post(pdf, 'application/json');
    assert.equal(wrongType.status, 415);
    assertProblem(wrongType.body, 415);
  });

  it('answers 404 with the error body for an unknown capture', async () => {
    const r = await s.call('GET', `/v1/captures/cap_${'0'.repeat(26)}/certificate`);
    assert.equal(r.status, 404);
    assertProblem(r.body, 404);
  });
});
