import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { localNotary } from '../../../src/archive/notary.js';
import {
  attachCertificateEnvelope,
  CERTIFICATE_FORMAT,
  MAX_ENVELOPE_BYTES,
  MAX_ENVELOPE_DEPTH,
  sha256Prefixed,
  verifyCertificate,
  type CertificateVerification,
} from '../../../packages/verifier/src/index.js';
import { publishedKeys, testKey } from '../archive/bundle-fixture.js';

/**
 * Hostile certificates: whatever bytes are uploaded to POST /v1/verify/certificate, the verifier answers
 * a failed check — it never throws, never parses an attachment larger or deeper than a certificate's, and echoes
 * nothing an uploader chose at length. Hand-made cases first, then seeded random mutations of a genuine one.
 */

const trust = { keys: publishedKeys(), tsaCaCertsPem: [] };
const latin1 = (text: string) => Buffer.from(text, 'latin1');
const captureId = `cap_${'ab'.repeat(16)}`;
const bundleHash = `sha256:${'0'.repeat(64)}`;

/** The smallest document the update can follow: one catalog, a classic trailer. */
function signedDocument(): Uint8Array {
  const head = '%PDF-1.3\n';
  const catalog = '1 0 obj\n<<\n/Type /Catalog\n>>\nendobj\n';
  const xrefAt = head.length + catalog.length;
  return latin1(
    `${head}${catalog}xref\n0 2\n0000000000 65535 f \n${String(head.length).padStart(10, '0')} 00000 n \ntrailer\n<<\n/Size 2\n/Root 1 0 R\n>>\nstartxref\n${xrefAt}\n%%EOF\n`,
  );
}

async function genuine(): Promise<{ document: Uint8Array; envelope: Record<string, unknown>; pdf: Uint8Array }> {
  const document = signedDocument();
  const certificateHash = await sha256Prefixed(document);
  const attested = await localNotary(testKey()).certify({ captureId, bundleHash, certificateHash });
  const envelope = {
    format: CERTIFICATE_FORMAT,
    captureId,
    bundleHash,
    url: 'https://example.com/',
    certificateHash,
    bytes: document.length,
    signature: attested.signature,
    timestamp: attested.timestamp,
  };
  return { document, envelope, pdf: attachCertificateEnvelope(document, latin1(JSON.stringify(envelope))) };
}

/** The update around attachment bytes of any kind: what an uploader can send past the first checks. */
const withAttachment = (document: Uint8Array, json: Uint8Array) => attachCertificateEnvelope(document, json);

const envelopeCheck = (r: CertificateVerification) => r.checks.find((c) => c.name === 'envelope')!;
/** Nothing the uploader chose comes back at length: the whole answer stays small. */
const assertSmall = (r: CertificateVerification) =>
  assert.ok(JSON.stringify(r).length < 8 * 1024, `answer of ${JSON.stringify(r).length} characters`);

describe('certificate verification of hostile uploads', () => {
  it('a genuine certificate verifies (the baseline the cases below break)', async () => {
    const { pdf } = await genuine();
    const r = await verifyCertificate(pdf, trust);
    assert.deepEqual(
      r.checks.map((c) => `${c.name}:${c.status}`),
      ['envelope:pass', 'certificateHash:pass', 'signature:pass', 'timestamp:skip', 'pdfSignature:skip'],
    );
  });

  it('refuses an attachment of millions of nested brackets before parsing it', async () => {
    const json = latin1('['.repeat(2_500_000));
    const r = await verifyCertificate(withAttachment(signedDocument(), json), trust);
    assert.equal(r.verified, false);
    assert.match(envelopeCheck(r).detail!, new RegExp(`at most ${MAX_ENVELOPE_BYTES}`));
    assertSmall(r);
  });

  it('refuses nesting deeper than a certificate has, within the size bound', async () => {
    const json = latin1(`${'['.repeat(MAX_ENVELOPE_DEPTH + 1)}${']'.repeat(MAX_ENVELOPE_DEPTH + 1)}`);
    const r = await verifyCertificate(withAttachment(signedDocument(), json), trust);
    assert.match(envelopeCheck(r).detail!, new RegExp(`deeper than ${MAX_ENVELOPE_DEPTH}`));
    // Brackets inside strings are text, not nesting.
    const { document, envelope } = await genuine();
    const quoted = await verifyCertificate(
      withAttachment(document, latin1(JSON.stringify({ ...envelope, note: '['.repeat(1000) }))),
      trust,
    );
    assert.equal(envelopeCheck(quoted).status, 'pass');
  });

  it('echoes no field an uploader made long: captureId, url, signature fields and the timestamp must have their shape', async () => {
    const { document, envelope } = await genuine();
    const big = 'x'.repeat(MAX_ENVELOPE_BYTES - 2048);
    const variants: Array<[string, Record<string, unknown>]> = [
      ['captureId', { ...envelope, captureId: `cap_${big}` }],
      ['url', { ...envelope, url: `https://example.com/${big}` }],
      ['bundleHash', { ...envelope, bundleHash: `sha256:${big}` }],
      ['signature.keyId', { ...envelope, signature: { ...(envelope['signature'] as object), keyId: big } }],
      ['signature.signedAt', { ...envelope, signature: { ...(envelope['signature'] as object), signedAt: big } }],
      ['timestamp.tsa', { ...envelope, timestamp: { token: 'AA==', genTime: '2024-01-01T00:00:00Z', tsa: big } }],
    ];
    for (const [field, value] of variants) {
      const r = await verifyCertificate(withAttachment(document, latin1(JSON.stringify(value))), trust);
      assert.equal(r.verified, false, field);
      assert.match(envelopeCheck(r).detail!, new RegExp(`envelope's ${field.replace('.', '\\.')} is not`), field);
      assertSmall(r);
    }
  });

  it('reads a file of many catalog openings in linear time (no lazy regex scan from each)', async () => {
    // Each opening would make `\n1 0 obj\n<<\n([\s\S]*?)\n>>\nendobj\n` scan to the end: quadratic.
    const { envelope } = await genuine();
    const json = JSON.stringify(envelope);
    const openings = '\n1 0 obj\n<<\n'.repeat(20_000);
    const document = latin1(`%PDF-1.3\n${openings}\ntrailer\n<<\n/Size 2\n/Root 1 0 R\n>>\nstartxref\n9\n%%EOF\n`);
    const update = `%capture-ledger certificate signature v1\n3 0 obj\n<<\n/Type /EmbeddedFile\n/Subtype /application#2Fjson\n/Length ${json.length}\n>>\nstream\n${json}`;
    const r = await verifyCertificate(Buffer.concat([document, latin1(update)]), trust);
    assert.equal(r.verified, false);
    assert.equal(envelopeCheck(r).detail, 'the PDF catalog is not readable');
  });

  it('seeded random mutations of a genuine certificate never throw, and pass only with what is signed intact', async () => {
    const { pdf, envelope } = await genuine();
    let seed = 0x28;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let round = 0; round < 300; round++) {
      const mutated = Buffer.from(pdf);
      const edits = 1 + Math.floor(random() * 4);
      for (let e = 0; e < edits; e++) mutated[Math.floor(random() * mutated.length)] = Math.floor(random() * 256);
      if (mutated.equals(Buffer.from(pdf))) continue;
      const cut = random() < 0.2 ? mutated.subarray(0, Math.floor(random() * mutated.length)) : mutated;
      const r = await verifyCertificate(cut, trust);
      // An edit of the url or signedAt (outside the signed message) may pass here, where neither the document (it
      // states no URL) nor a PDF signature covers them: then neither is shown.
      if (r.verified) {
        const { captureId: id, bundleHash: hash, certificateHash, url } = r.certificate!;
        assert.deepEqual(
          { id, hash, certificateHash, url, signedAt: r.signing?.signedAt },
          {
            id: envelope['captureId'],
            hash: envelope['bundleHash'],
            certificateHash: envelope['certificateHash'],
            url: null,
            signedAt: null,
          },
          `round ${round}`,
        );
      }
      assertSmall(r);
    }
  });
});
