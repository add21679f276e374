import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditLog, ledgerFactOf, type LedgerFact } from '../../../src/transparency/log-audit.js';

/** The pure comparison of `log audit`: given ledger facts and log leaves, then findings. */

const bundle = (n: number) => ({
  bundleHash: `sha256:${String(n).padStart(64, '0')}`,
  size: 1,
  version: '0.2.0',
  keyId: 'k1',
  genTime: null,
});
let seq = 0;
const fact = (type: string, data: unknown, tenantId = 't'): LedgerFact =>
  ledgerFactOf({ seq: ++seq, index: 0, event: { type, tenantId, data } })!;
const capture = (id: string, n: number) => fact('capture.completed', { captureId: id, bundle: bundle(n) });
const key = (id: string) =>
  fact('signing.key_rotated', { keyId: id, publicKey: 'AAAA', rotatedAt: '2026-01-01T00:00:00Z' }, '$system');
const leavesOf = (facts: LedgerFact[]) => facts.map((f, index) => ({ index, data: f.leaf }));

describe('auditLog', () => {
  const a = capture('cap_a', 1);
  const b = capture('cap_b', 2);
  const k = key('k9');

  it('given the facts logged in ledger order, then no finding', () => {
    const report = auditLog([a, k, b], leavesOf([a, k, b]));
    assert.equal(report.ok, true);
    assert.deepEqual([report.leaves, report.facts, report.captures], [3, 3, 2]);
  });

  it('given the same leaves in another order, then ORDER names the first leaf out of place', () => {
    const report = auditLog([a, k, b], leavesOf([a, b, k]));
    assert.deepEqual(
      report.findings.map((f) => [f.kind, f.leafIndex]),
      [['ORDER', 1]],
    );
  });

  it('given a publication without its leaf and a leaf no event makes, then MISSING and UNKNOWN', () => {
    const report = auditLog([a, k], leavesOf([a, key('k10')]));
    assert.deepEqual(
      report.findings.map((f) => f.kind),
      ['MISSING', 'UNKNOWN'],
    );
    assert.match(report.findings[0]!.message, /signing key k9 .* has no leaf in the log/);
    assert.match(report.findings[1]!.message, /leaf 1 is signing key k10, which no ledger event publishes/);
  });

  it('given two signed bundles of one capture in the ledger, both logged, then SECOND BUNDLE names it', () => {
    const again = capture('cap_a', 3);
    const report = auditLog([a, again], leavesOf([a, again]));
    assert.deepEqual(
      report.findings.map((f) => [f.kind, f.captureId]),
      [['SECOND BUNDLE', 'cap_a']],
    );
  });

  it('given a leaf that is not a log record, then NOT A RECORD', () => {
    const report = auditLog([a], [...leavesOf([a]), { index: 1, data: '{"hello":1}' }]);
    assert.deepEqual(
      report.findings.map((f) => [f.kind, f.leafIndex]),
      [['NOT A RECORD', 1]],
    );
  });
});
