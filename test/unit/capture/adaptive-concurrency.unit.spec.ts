import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ADAPTIVE_LIMITS,
  type CapacitySample,
  createAdaptiveLimit,
} from '../../../src/capture/adaptive-concurrency.js';

const GB = 1024 ** 3;
const calm: CapacitySample = { starvation: 0.05, eventLoopDelayMs: 20, availableMemoryBytes: 8 * GB, running: 0 };

describe('adaptive concurrency limit', () => {
  it('starts at half the maximum, at least 1', () => {
    assert.equal(createAdaptiveLimit({ max: 4 }).limit(), 2);
    assert.equal(createAdaptiveLimit({ max: 1 }).limit(), 1);
    assert.equal(createAdaptiveLimit({ max: 5 }).limit(), 3);
  });

  it('adds one while the host has room and the limit is in use, never past the maximum', () => {
    const a = createAdaptiveLimit({ max: 4, initial: 2 });
    let t = 0;
    assert.equal(a.update({ ...calm, running: 2 }, (t += 6000)), 'increase');
    assert.equal(a.limit(), 3);
    assert.equal(a.update({ ...calm, running: 3 }, (t += 1000)), 'hold', 'not again within the cool-down');
    assert.equal(a.update({ ...calm, running: 3 }, (t += 6000)), 'increase');
    assert.equal(a.update({ ...calm, running: 4 }, (t += 6000)), 'hold');
    assert.equal(a.limit(), 4);
  });

  it('does not raise a limit that is not in use', () => {
    const a = createAdaptiveLimit({ max: 8, initial: 2 });
    assert.equal(a.update({ ...calm, running: 1 }, 10_000), 'hold');
    assert.equal(a.limit(), 2);
  });

  it('halves when the capture processes starve, the event loop lags or memory runs short, down to 1', () => {
    const a = createAdaptiveLimit({ max: 16, initial: 16 });
    let t = 0;
    assert.equal(a.update({ ...calm, starvation: 0.8, running: 16 }, (t += 20_000)), 'decrease');
    assert.equal(a.limit(), 8);
    assert.equal(a.update({ ...calm, starvation: 0.8 }, (t += 1000)), 'hold', 'waits for the effect of a decrease');
    assert.equal(a.update({ ...calm, eventLoopDelayMs: 2000 }, (t += ADAPTIVE_LIMITS.decreaseCooldownMs)), 'decrease');
    assert.equal(
      a.update({ ...calm, availableMemoryBytes: 100 * 1024 ** 2 }, (t += ADAPTIVE_LIMITS.decreaseCooldownMs)),
      'decrease',
    );
    assert.equal(a.limit(), 2);
    a.update({ ...calm, starvation: 0.9 }, (t += ADAPTIVE_LIMITS.decreaseCooldownMs));
    assert.equal(a.limit(), 1);
    assert.equal(
      a.update({ ...calm, starvation: 0.9 }, (t += ADAPTIVE_LIMITS.decreaseCooldownMs)),
      'hold',
      'never below 1',
    );
  });

  it('keeps a floor (one per core) against starvation and lag; only memory running short goes below it', () => {
    const a = createAdaptiveLimit({ max: 4, min: 2, initial: 4 });
    let t = 0;
    assert.equal(a.update({ ...calm, starvation: 0.9, running: 4 }, (t += 20_000)), 'decrease');
    assert.equal(a.limit(), 2);
    assert.equal(
      a.update({ ...calm, starvation: 0.9, running: 2 }, (t += ADAPTIVE_LIMITS.decreaseCooldownMs)),
      'hold',
      'a starved host: slower, not fewer than the floor',
    );
    assert.equal(
      a.update({ ...calm, eventLoopDelayMs: 5000, running: 2 }, (t += ADAPTIVE_LIMITS.decreaseCooldownMs)),
      'hold',
    );
    assert.equal(a.limit(), 2);
    assert.equal(
      a.update(
        { ...calm, availableMemoryBytes: 100 * 1024 ** 2, running: 2 },
        (t += ADAPTIVE_LIMITS.decreaseCooldownMs),
      ),
      'decrease',
    );
    assert.equal(a.limit(), 1);
    assert.equal(
      createAdaptiveLimit({ max: 4, min: 3 }).limit(),
      3,
      'starts at the floor when half the maximum is below it',
    );
    assert.equal(createAdaptiveLimit({ max: 1, min: 2 }).limit(), 1, 'the floor is never above the maximum');
  });

  it('holds between the two thresholds', () => {
    const a = createAdaptiveLimit({ max: 8, initial: 4 });
    assert.equal(a.update({ ...calm, starvation: 0.4, running: 4 }, 20_000), 'hold');
    assert.equal(a.limit(), 4);
  });
});
