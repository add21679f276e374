import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { captureIdHash, decodeLeaf, encodeLeaf, leafOfEvent } from '../../../src/transparency/leaf.js';
import { auditLog, ledgerFactOf } from '../../../src/transparency/log-audit.js';

/** A corroboration record is logged like a bundle: its own leaf kind, audited like the others. */

const attested = (corroborationId: string, recordHash: string) => ({
  type: 'capture.corroboration_attested',
  data: {
    corroborationId,
    captureIds: ['cap_a', 'cap_b'],
    recordHash,
    keyId: 'k1',
    genTime: '2026-11-26T10:00:00Z',
    attestedAt: '2026-11-26T10:00:01Z',
  },
});

describe('corroboration leaves', () => {
  it('name the record hash and the hash of the set id, never the id or its members', () => {
    const leaf = leafOfEvent(attested('cor_set1', `sha256:${'c'.repeat(64)}`));
    assert.deepEqual(leaf, {
      v: 1,
      kind: 'corroboration',
      corroborationIdHash: captureIdHash('cor_set1'),
      recordHash: `sha256:${'c'.repeat(64)}`,
      keyId: 'k1',
      genTime: '2026-11-26T10:00:00Z',
    });
    assert.deepEqual(decodeLeaf(encodeLeaf(leaf!)), leaf);
    const text = new TextDecoder().decode(encodeLeaf(leaf!));
    assert.ok(!text.includes('cor_set1') && !text.includes('cap_a'), text);
  });

  it('are explained by their ledger facts in the audit; one the ledger never attested is reported', () => {
    const a = ledgerFactOf({
      seq: 1,
      index: 0,
      event: { ...attested('cor_a', `sha256:${'1'.repeat(64)}`), tenantId: 't' },
    })!;
    const forged = ledgerFactOf({
      seq: 2,
      index: 0,
      event: { ...attested('cor_b', `sha256:${'2'.repeat(64)}`), tenantId: 't' },
    })!;
    assert.equal(auditLog([a], [{ index: 0, data: a.leaf }]).ok, true);
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
