import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freePort } from '../../../src/infra/free-port.js';

describe('freePort', () => {
  it('never hands out one port twice, also to calls made side by side (a cluster takes ~18 before any is bound)', async () => {
    // 1,500 ports drawn at random from ~17,700 would meet about 60 times.
    const ports: number[] = [];
    for (let round = 0; round < 75; round++) ports.push(...(await Promise.all(Array.from({ length: 20 }, freePort))));
    assert.equal(new Set(ports).size, ports.length);
  });
});
