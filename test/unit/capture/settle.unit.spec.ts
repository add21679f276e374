import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitForNetworkQuiet, type InflightSource } from '../../../src/capture/settle.js';

/** An in-flight counter driven by the test. */
function fakeNetwork(initial = 0): InflightSource & { set(n: number): void } {
  let count = initial;
  const listeners = new Set<() => void>();
  return {
    inflight: () => count,
    onInflightChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(n) {
      count = n;
      for (const l of listeners) l();
    },
  };
}

describe('waitForNetworkQuiet', () => {
  it('ends as idle after the quiet window when nothing is in flight', async () => {
    const result = await waitForNetworkQuiet(fakeNetwork(0), { quietWindowMs: 50, capMs: 1000 });
    assert.equal(result.reason, 'idle');
    assert.ok(result.elapsedMs >= 45 && result.elapsedMs < 500, `elapsed ${result.elapsedMs}`);
  });

  it('restarts the quiet window when a request starts', async () => {
    const network = fakeNetwork(1);
    setTimeout(() => network.set(0), 40);
    setTimeout(() => network.set(1), 70); // inside the window: not quiet yet
    setTimeout(() => network.set(0), 120);
    const result = await waitForNetworkQuiet(network, { quietWindowMs: 60, capMs: 1000 });
    assert.equal(result.reason, 'idle');
    assert.ok(result.elapsedMs >= 175, `elapsed ${result.elapsedMs}`);
  });

  it('ends at the cap while requests stay in flight', async () => {
    const result = await waitForNetworkQuiet(fakeNetwork(2), { quietWindowMs: 20, capMs: 120 });
    assert.equal(result.reason, 'cap');
    assert.ok(result.elapsedMs >= 115 && result.elapsedMs < 600, `elapsed ${result.elapsedMs}`);
  });

  it('stops at once when aborted and removes its listener', async () => {
    const controller = new AbortController();
    let listeners = 0;
    const network: InflightSource = {
      inflight: () => 1,
      onInflightChange: () => {
        listeners++;
        return () => listeners--;
      },
    };
    setTimeout(() => controller.abort(), 20);
    const result = await waitForNetworkQuiet(network, { quietWindowMs: 50, capMs: 5000, signal: controller.signal });
    assert.ok(result.elapsedMs < 1000);
    assert.equal(listeners, 0);
  });
});
