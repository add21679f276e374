import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ActorSnapshot,
  checkSnapshotAgainstLog,
  encodeSnapshot,
  parseSnapshot,
  sealSnapshot,
} from '../../../src/actors/actor-snapshot.js';
import type { StoredEvent } from '../../../src/ledger/event-store.js';

const snap = (over: Partial<Omit<ActorSnapshot, 'format' | 'digest'>> = {}) =>
  sealSnapshot({
    key: 'acme',
    stateVersion: 2,
    lastSeq: 10,
    lastHash: 'h10',
    takenAt: '2026-11-22T00:00:00.000Z',
    state: { a: 1 },
    ...over,
  });
const stored = (seq: number, hash: string): StoredEvent => ({
  seq,
  index: 0,
  subject: 'ledger.tenant.acme',
  event: { hash } as StoredEvent['event'],
});
const expect = { key: 'acme', stateVersion: 2 };

describe('actor snapshot envelope', () => {
  it('accepts an intact snapshot of the current version', () => {
    const r = parseSnapshot(encodeSnapshot(snap()), expect);
    assert.ok(r.ok);
    assert.deepEqual(r.snapshot.state, { a: 1 });
  });

  it('rejects a stale state version, another key, altered bytes and non-JSON', () => {
    const stale = parseSnapshot(encodeSnapshot(snap({ stateVersion: 1 })), expect);
    assert.ok(!stale.ok && stale.kind === 'stale' && /stale/.test(stale.reason));
    const other = parseSnapshot(encodeSnapshot(snap({ key: 'other' })), expect);
    assert.ok(!other.ok && other.kind === 'other-key' && /not acme/.test(other.reason));
    const altered = { ...snap(), state: { a: 2 } };
    const r = parseSnapshot(encodeSnapshot(altered), expect);
    assert.ok(!r.ok && r.kind === 'altered' && /digest/.test(r.reason));
    const moved = { ...snap(), lastSeq: 11 };
    assert.ok(!parseSnapshot(encodeSnapshot(moved), expect).ok);
    assert.ok(!parseSnapshot(new TextEncoder().encode('{"format":1'), expect).ok);
    assert.ok(!parseSnapshot(new TextEncoder().encode('null'), expect).ok);
  });

  it('is trusted only when its sequence is a commit of the subject ending with its hash', () => {
    const s = snap();
    assert.equal(checkSnapshotAgainstLog(s, stored(10, 'h10'), [stored(10, 'h10')]), null);
    assert.equal(checkSnapshotAgainstLog(s, stored(20, 'h20'), [stored(10, 'x'), stored(10, 'h10')]), null);
    assert.match(checkSnapshotAgainstLog(s, null, null)!, /no events/);
    assert.match(checkSnapshotAgainstLog(s, stored(9, 'h9'), null)!, /does not have it/);
    assert.match(checkSnapshotAgainstLog(s, stored(20, 'h20'), null)!, /not a commit of this subject/);
    assert.match(checkSnapshotAgainstLog(s, stored(20, 'h20'), [stored(10, 'other')])!, /does not match the hash/);
  });
});
