import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VerificationResult } from '../../../packages/verifier/src/index.js';
import { createVerificationCache } from '../../../src/application/verification-cache.js';

const verdict = (verified: boolean) => ({ verified }) as unknown as VerificationResult;

describe('verification cache', () => {
  it('verifies a bundle once however many ask, at most `concurrency` bundles at a time', async () => {
    const cache = createVerificationCache({ concurrency: 2 });
    let running = 0;
    let peak = 0;
    const calls = new Map<string, number>();
    const release: Array<() => void> = [];
    const verify = (key: string) => async () => {
      calls.set(key, (calls.get(key) ?? 0) + 1);
      running++;
      peak = Math.max(peak, running);
      await new Promise<void>((r) => release.push(r));
      running--;
      return verdict(true);
    };
    const all = ['a', 'a', 'b', 'c', 'c', 'd'].map((k) => cache.get(k, verify(k)));
    while (release.length < 2) await new Promise((r) => setImmediate(r));
    assert.equal(running, 2, 'two run, the others wait');
    while (release.length > 0 || running > 0) {
      release.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    assert.ok((await Promise.all(all)).every((r) => r?.verified));
    assert.equal(peak, 2);
    assert.deepEqual([...calls.values()], [1, 1, 1, 1]);
    assert.equal((await cache.get('a', async () => assert.fail('a is cached')))?.verified, true);
  });

  it('keeps a failed verification for a short while only', async () => {
    let t = 0;
    const cache = createVerificationCache({ failureTtlMs: 1000, now: () => t });
    let calls = 0;
    const verify = async () => verdict(++calls > 1);
    assert.equal((await cache.get('x', verify))?.verified, false);
    assert.equal((await cache.get('x', verify))?.verified, false);
    assert.equal(calls, 1);
    t = 1001;
    assert.equal((await cache.get('x', verify))?.verified, true);
    t = 10_000_000;
    assert.equal((await cache.get('x', verify))?.verified, true);
    assert.equal(calls, 2);
  });
});
