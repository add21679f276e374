import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { localNotary } from '../../../src/archive/notary.js';
import {
  attachCertificateEnvelope,
  CERTIFICATE_FORMAT,
  sha256Prefixed,
  URL_INFO_KEY,
  verifyCertificate,
} from '../../../packages/verifier/src/index.js';
import { publishedKeys, testKey } from '../archive/bundle-fixture.js';

/**
 * What a certificate verification shows is what a passing check covers (docs/evidence.md, What a verification
 * shows): the URL when the signed document states its SHA-256 (the `url` check) or a PDF signature covers the
 * attachment, signedAt and the TSA's URL only with a PDF signature. A certificate issued without either still
 * verifies, shows neither, and says so. And an upload is read on bytes: verifying a MiB builds no string code unit
 * by code unit (the cost of the old `String.fromCharCode(...)` over 32 KB slices, about a second of event loop per MiB).
 */

const trust = { keys: publishedKeys(), tsaCaCertsPem: [] };
const latin1 = (text: string) => Buffer.from(text, 'latin1');
const captureId = `cap_${'cd'.repeat(16)}`;
const bundleHash = `sha256:${'1'.repeat(64)}`;
const URL_TEXT = 'https://example.com/contract';

/** A minimal document: a catalog, optionally an Info dictionary stating the URL's SHA-256, optionally a long comment. */
function signedDocument(opts: { statesUrl?: string; padding?: number } = {}): Uint8Array {
  const head = `%PDF-1.3\n${opts.padding ? `%${'x'.repeat(opts.padding)}\n` : ''}`;
  const catalog = '1 0 obj\n<<\n/Type /Catalog\n>>\nendobj\n';
  const digest = opts.statesUrl && `sha256:${createHash('sha256').update(opts.statesUrl, 'utf8').digest('hex')}`;
  const info = digest ? `2 0 obj\n<<\n/${URL_INFO_KEY} (${digest})\n>>\nendobj\n` : '';
  const xrefAt = head.length + catalog.length + info.length;
  const entries = `${String(head.length).padStart(10, '0')} 00000 n \n${info ? `${String(head.length + catalog.length).padStart(10, '0')} 00000 n \n` : ''}`;
  const size = info ? 3 : 2;
  return latin1(
    `${head}${catalog}${info}xref\n0 ${size}\n0000000000 65535 f \n${entries}trailer\n<<\n/Size ${size}\n/Root 1 0 R\n${info ? '/Info 2 0 R\n' : ''}>>\nstartxref\n${xrefAt}\n%%EOF\n`,
  );
}

async function certificate(document: Uint8Array, url = URL_TEXT): Promise<Uint8Array> {
  const certificateHash = await sha256Prefixed(document);
  const attested = await localNotary(testKey()).certify({ captureId, bundleHash, certificateHash });
  const envelope = {
    format: CERTIFICATE_FORMAT,
    captureId,
    bundleHash,
    url,
    certificateHash,
    bytes: document.length,
    signature: attested.signature,
    timestamp: attested.timestamp,
  };
  return attachCertificateEnvelope(document, latin1(JSON.stringify(envelope)));
}

const statusOf = (r: { checks: Array<{ name: string; status: string }> }) =>
  Object.fromEntries(r.checks.map((c) => [c.name, c.status]));

describe('certificate verification shows only what is signed', () => {
  it('a certificate without URL statement or PDF signature (issued before them) verifies, showing neither url nor signedAt', async () => {
    const r = await verifyCertificate(await certificate(signedDocument()), trust);
    assert.equal(r.verified, true, JSON.stringify(r.checks));
    assert.equal(r.certificate?.captureId, captureId);
    assert.equal(r.certificate?.url, null);
    assert.equal(r.signing?.signedAt, null);
    const pdf = r.checks.find((c) => c.name === 'pdfSignature');
    assert.equal(pdf?.status, 'skip');
    assert.match(pdf?.detail ?? '', /no PDF signature: signature\.signedAt, timestamp\.tsa, url .* not shown/);
    assert.equal(statusOf(r)['url'], undefined);
  });

  it('a document stating the URL: the url check passes and the URL is shown', async () => {
    const r = await verifyCertificate(await certificate(signedDocument({ statesUrl: URL_TEXT })), trust);
    assert.equal(r.verified, true, JSON.stringify(r.checks));
    assert.equal(statusOf(r)['url'], 'pass');
    assert.equal(r.certificate?.url, URL_TEXT);
    assert.equal(r.signing?.signedAt, null, 'no PDF signature: signedAt is not covered');
  });

  it('a document stating the URL with another url in the envelope: the url check fails, the url is not shown', async () => {
    const forged = 'https://forged.example/contract-v2';
    const r = await verifyCertificate(await certificate(signedDocument({ statesUrl: URL_TEXT }), forged), trust);
    assert.equal(r.verified, false);
    const check = r.checks.find((c) => c.name === 'url');
    assert.equal(check?.status, 'fail');
    assert.match(check?.detail ?? '', /url was changed after signing/);
    assert.equal(r.certificate?.url, null);
    assert.ok(!JSON.stringify(r).includes(forged));
  });

  it('a signature that does not verify shows nothing of the envelope', async () => {
    const r = await verifyCertificate(await certificate(signedDocument({ statesUrl: URL_TEXT })), {
      ...trust,
      keys: [],
    });
    assert.equal(r.verified, false);
    assert.equal(r.certificate, null);
    assert.equal(r.signing, null);
  });

  it('reads a 1 MiB upload on bytes: no string is built from it code unit by code unit', async () => {
    const random = new Uint8Array(1024 * 1024);
    for (let i = 0; i < random.length; i++) random[i] = (Math.imul(i, 2654435761) >>> 24) & 0xff;
    random.set(latin1('%PDF-1.7\n'));
    const padded = await certificate(signedDocument({ statesUrl: URL_TEXT, padding: 1024 * 1024 }));
    const fromCharCode = String.fromCharCode;
    let codeUnits = 0;
    String.fromCharCode = (...codes: number[]) => {
      codeUnits += codes.length;
      return fromCharCode(...codes);
    };
    try {
      const failed = await verifyCertificate(random, trust);
      const verified = await verifyCertificate(padded, trust);
      assert.equal(failed.verified, false);
      assert.equal(verified.verified, true, JSON.stringify(verified.checks));
    } finally {
      String.fromCharCode = fromCharCode;
    }
    assert.ok(codeUnits < 64 * 1024, `String.fromCharCode built ${codeUnits} code units from two 1 MiB uploads`);
  });
});
