import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { captureIdHash, decodeLeaf, encodeLeaf, leafOfEvent } from '../../../src/transparency/leaf.js';
import { auditLog, type LedgerFact, ledgerFactOf } from '../../../src/transparency/log-audit.js';

/** A diff issued as evidence is logged like a bundle: its own leaf kind, audited like the others. */

const attested = (captureId: string, recordHash: string) => ({
  type: 'capture.diff_attested',
  data: {
    captureId,
    baseCaptureId: 'cap_base',
    recordHash,
    keyId: 'k1',
    genTime: '2026-11-26T10:00:00Z',
    attestedAt: '2026-11-26T10:00:01Z',
  },
});

describe('diff leaves', () => {
  it('name the record hash and the hash of the newer capture id, never the id itself', () => {
    const leaf = leafOfEvent(attested('cap_new', `sha256:${'a'.repeat(64)}`));
    assert.deepEqual(leaf, {
      v: 1,
      kind: 'diff',
      captureIdHash: captureIdHash('cap_new'),
      recordHash: `sha256:${'a'.repeat(64)}`,
      keyId: 'k1',
      genTime: '2026-11-26T10:00:00Z',
    });
    assert.deepEqual(decodeLeaf(encodeLeaf(leaf!)), leaf);
    assert.ok(!new TextDecoder().decode(encodeLeaf(leaf!)).includes('cap_new'));
  });

  it('are explained by their ledger facts in the audit, and a leaf the ledger never attested is reported', () => {
    let seq = 0;
    const fact = (e: ReturnType<typeof attested>): LedgerFact =>
      ledgerFactOf({ seq: ++seq, index: 0, event: { ...e, tenantId: 't' } })!;
    const a = fact(attested('cap_a', `sha256:${'1'.repeat(64)}`));
    const b = fact(attested('cap_b', `sha256:${'2'.repeat(64)}`));
    assert.equal(
      auditLog(
        [a, b],
        [a, b].map((f, index) => ({ index, data: f.leaf })),
      ).ok,
      true,
    );
    const forged = fact(attested('cap_c', `sha256:${'3'.repeat(64)}`));
    const report = auditLog(
      [a],
      [a, forged].map((f, index) => ({ index, data: f.leaf })),
    );
    assert.equal(report.ok, false);
    assert.ok(
      report.findings.some((f) => f.leafIndex === 1),
      JSON.stringify(report.findings),
    );
  });
});
