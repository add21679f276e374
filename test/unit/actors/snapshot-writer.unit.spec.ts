import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SnapshotStore } from '../../../src/actors/snapshot-store.js';
import { createSnapshotWriter } from '../../../src/actors/snapshot-writer.js';

/** A store whose puts finish when the test says so. */
function slowStore() {
  const stored = new Map<string, string>();
  const puts: Array<{ key: string; value: string; finish: () => void }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const store: SnapshotStore = {
    get: async (key) => (stored.has(key) ? new TextEncoder().encode(stored.get(key)) : null),
    put: (key, value) =>
      new Promise<void>((resolve) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        puts.push({
          key,
          value: new TextDecoder().decode(value),
          finish: () => {
            inFlight--;
            stored.set(key, new TextDecoder().decode(value));
            resolve();
          },
        });
      }),
  };
  return { store, stored, puts, maxInFlight: () => maxInFlight };
}
const bytes = (s: string) => new TextEncoder().encode(s);
const tick = () => new Promise((r) => setImmediate(r));

describe('snapshot writer', () => {
  it('keeps at most `concurrency` puts in flight and writes every key', async () => {
    const s = slowStore();
    const writer = createSnapshotWriter(s.store, { concurrency: 3 });
    for (let i = 0; i < 50; i++) writer.write(`t${i}`, bytes(`v${i}`));
    const idle = writer.idle();
    while (s.stored.size < 50) {
      await tick();
      for (const p of s.puts.splice(0)) p.finish();
    }
    await idle;
    assert.equal(s.maxInFlight(), 3);
    assert.equal(s.stored.get('t49'), 'v49');
  });

  it('never writes one key twice at once, and the newest value is the one that stays', async () => {
    const s = slowStore();
    const writer = createSnapshotWriter(s.store, { concurrency: 4 });
    writer.write('acme', bytes('1'));
    writer.write('acme', bytes('2'));
    writer.write('acme', bytes('3'));
    assert.deepEqual(
      s.puts.map((p) => p.value),
      ['1'],
    ); // 2 waits, then is replaced by 3
    s.puts.shift()!.finish();
    await tick();
    assert.deepEqual(
      s.puts.map((p) => p.value),
      ['3'],
    );
    s.puts.shift()!.finish();
    await writer.idle();
    assert.equal(s.stored.get('acme'), '3');
  });
});
