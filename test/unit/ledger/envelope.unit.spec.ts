import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson } from '../../../src/domain/canonical-json.js';
import { checkEnvelope, type EventEnvelope, seal } from '../../../src/ledger/envelope.js';

const unsealed = (id: string) => ({
  type: 'key.revoked' as const,
  data: { keyHash: 'h', revokedAt: '2026-11-22T00:00:00.000Z' },
  id,
  schemaVersion: 1,
  tenantId: 'acme',
  occurredAt: '2026-11-22T00:00:00.000Z',
  causedBy: { kind: 'admin' as const },
  correlationId: 'req_1',
});

describe('event envelope hash chain', () => {
  it('canonical JSON sorts keys and is stable', () => {
    assert.equal(canonicalJson({ b: 1, a: [2, { d: 1, c: 'x' }] }), '{"a":[2,{"c":"x","d":1}],"b":1}');
  });

  it('chains events and detects an altered payload or a dropped predecessor', () => {
    const first = seal(unsealed('evt_1'), null);
    const second = seal(unsealed('evt_2'), first.hash);
    assert.equal(checkEnvelope(first, null), null);
    assert.equal(checkEnvelope(second, first.hash), null);
    const altered = { ...second, data: { ...second.data, keyHash: 'other' } } as EventEnvelope;
    assert.equal(checkEnvelope(altered, first.hash)!.kind, 'hash');
    assert.match(checkEnvelope(altered, first.hash)!.detail, /does not match the recomputed/);
    assert.equal(checkEnvelope(second, null)!.kind, 'prev-hash');
    assert.match(checkEnvelope(second, null)!.detail, /prevHash/);
  });
});
