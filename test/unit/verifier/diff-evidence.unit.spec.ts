import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { localNotary } from '../../../src/archive/notary.js';
import { signingKeyFromSeed } from '../../../src/archive/signing-key.js';
import { diffCaptures } from '../../../src/watch/capture-diff.js';
import { diffRecord } from '../../../src/watch/diff-record.js';
import { DIFF_FORMAT, evidenceKind, verifyDiff, verifyEvidence } from '../../../packages/verifier/src/index.js';

/** The diff as evidence, checked by the verifier package alone: a local key signs, nothing is time-stamped. */

const side = (id: string, text: string) => ({
  captureId: id,
  url: 'https://example.org/terms',
  completedAt: '2026-11-26T10:00:00.000Z',
  bundleHash: `sha256:${id === 'cap_b' ? 'b'.repeat(64) : 'a'.repeat(64)}`,
  html: `<body><h1>Terms</h1><p>${text}</p></body>`,
  headers: { 'content-type': 'text/html' },
  screenshot: null,
  wacz: null,
});

async function issued() {
  const key = signingKeyFromSeed(randomBytes(32).toString('base64'));
  const diff = await diffCaptures(side('cap_a', 'We keep your data.'), side('cap_b', 'We sell your data.'), {
    ignoreSelectors: [],
    ignoreText: [],
  });
  const { record, recordHash } = diffRecord(diff);
  const attested = await localNotary(key).certify({
    captureId: 'cap_b',
    bundleHash: diff.capture.bundleHash!,
    certificateHash: recordHash,
  });
  const evidence = { format: DIFF_FORMAT, record, recordHash, ...attested };
  const trust = { keys: [{ keyId: key.keyId, publicKey: key.publicKeyBase64 }], tsaCaCertsPem: [] };
  return { evidence, trust, bytes: (e: object) => new TextEncoder().encode(JSON.stringify(e, null, 2)) };
}

const statuses = (r: { checks: Array<{ name: string; status: string }> }) =>
  r.checks.map((c) => `${c.name}:${c.status}`);

describe('diff evidence (verifier package)', () => {
  it('verifies as issued, and is told apart from bundles and certificates', async () => {
    const { evidence, trust, bytes } = await issued();
    assert.equal(evidenceKind(bytes(evidence)), 'diff');
    const r = await verifyEvidence(bytes(evidence), trust);
    assert.equal(r.kind, 'diff');
    assert.equal(r.verified, true);
    assert.deepEqual(statuses(r), ['envelope:pass', 'recordHash:pass', 'signature:pass', 'timestamp:skip']);
    assert.equal(r.kind === 'diff' && r.diff?.changed, true);
  });

  it('refuses an edited record, a re-hashed one, an unpublished key and a broken file', async () => {
    const { evidence, trust, bytes } = await issued();
    const edited = { ...evidence, record: evidence.record.replace('"changed":true', '"changed":false') };
    assert.deepEqual(statuses(await verifyDiff(bytes(edited), trust)).slice(0, 2), [
      'envelope:pass',
      'recordHash:fail',
    ]);
    const { createHash } = await import('node:crypto');
    const rehashed = {
      ...edited,
      recordHash: `sha256:${createHash('sha256').update(edited.record, 'utf8').digest('hex')}`,
    };
    const forged = await verifyDiff(bytes(rehashed), trust);
    assert.equal(forged.verified, false);
    assert.deepEqual(statuses(forged).slice(0, 3), ['envelope:pass', 'recordHash:pass', 'signature:fail']);
    const stranger = await verifyDiff(bytes(evidence), { keys: [], tsaCaCertsPem: [] });
    assert.equal(stranger.verified, false);
    const broken = await verifyDiff(new TextEncoder().encode('{"format":"capture-ledger-diff/1"}'), trust);
    assert.deepEqual(statuses(broken), ['envelope:fail', 'recordHash:skip', 'signature:skip', 'timestamp:skip']);
  });
});
