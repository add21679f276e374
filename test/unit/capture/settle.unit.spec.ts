import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  combinedInflight,
  type EarlyQuiet,
  waitForNetworkQuiet,
  watchNetworkActivity,
  type InflightSource,
} from '../../../src/capture/settle.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
    // 'idle' is the proof that it ended before the cap; how soon after 50 ms depends on the machine's load.
    assert.equal(result.reason, 'idle');
    assert.ok(result.elapsedMs >= 45, `elapsed ${result.elapsedMs}`);
  });

  it('never ends the quiet window before it has passed on performance.now(), though a timer fires early', async () => {
    // The event loop's timers run on a clock of their own; here performance.now() runs 5 ms behind it from the
    // wait's start on, as if every timer fired 5 ms early.
    const realNow = performance.now.bind(performance);
    let lag = 0;
    Object.defineProperty(performance, 'now', { configurable: true, value: () => realNow() - lag });
    try {
      const waiting = waitForNetworkQuiet(fakeNetwork(0), { quietWindowMs: 50, capMs: 1000 });
      lag = 5;
      const result = await waiting;
      assert.equal(result.reason, 'idle');
      assert.ok(result.elapsedMs >= 50, `the window was cut short: ended ${result.elapsedMs} ms after it began`);
    } finally {
      Reflect.deleteProperty(performance, 'now');
    }
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
    assert.ok(result.elapsedMs >= 115, `elapsed ${result.elapsedMs}`);
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
    const result = await waitForNetworkQuiet(network, { quietWindowMs: 50, capMs: 120_000, signal: controller.signal });
    assert.ok(result.elapsedMs < 60_000, 'ended by the abort, long before the cap');
    assert.equal(listeners, 0);
  });

  it('counts the quiet window and the cap from the load event, not from the call', async () => {
    const network = fakeNetwork(0);
    const activity = watchNetworkActivity(network);
    const loadedAt = performance.now();
    await sleep(3100); // the caller got round to waiting only now; the page has been quiet since load
    const waitStart = performance.now();
    const result = await waitForNetworkQuiet(network, {
      quietWindowMs: 3000,
      capMs: 60_000,
      startedAt: loadedAt,
      quietSince: activity.quietSince(),
    });
    activity.stop();
    assert.equal(result.reason, 'idle');
    // The window was already over: no second window of 3000 ms (the margin is for a busy machine).
    assert.ok(performance.now() - waitStart < 2500, `waited ${Math.round(performance.now() - waitStart)} ms more`);
    assert.ok(result.elapsedMs >= 2995, `settle ${result.elapsedMs} ms from load`);
  });

  it('does not count quiet time from before the load event', async () => {
    const network = fakeNetwork(0);
    const activity = watchNetworkActivity(network); // quiet since now…
    await sleep(150);
    const loadedAt = performance.now(); // …but the window starts at load
    const result = await waitForNetworkQuiet(network, {
      quietWindowMs: 100,
      capMs: 1000,
      startedAt: loadedAt,
      quietSince: activity.quietSince(),
    });
    activity.stop();
    assert.equal(result.reason, 'idle');
    assert.ok(result.elapsedMs >= 95, `settle ${result.elapsedMs} ms`);
  });

  it('counts only the quiet time since the last request ended', async () => {
    const network = fakeNetwork(1);
    const activity = watchNetworkActivity(network);
    const loadedAt = performance.now();
    await sleep(50);
    network.set(0); // the last request ends 50 ms after load
    assert.equal(activity.quietSince() !== undefined, true);
    await sleep(50);
    const result = await waitForNetworkQuiet(network, {
      quietWindowMs: 150,
      capMs: 1000,
      startedAt: loadedAt,
      quietSince: activity.quietSince(),
    });
    activity.stop();
    assert.equal(result.reason, 'idle');
    assert.ok(result.elapsedMs >= 195, `settle ${result.elapsedMs} ms: 50 ms busy + 150 ms quiet`);
  });

  it('ends at a cap counted from the load event', async () => {
    const network = fakeNetwork(1);
    const loadedAt = performance.now();
    await sleep(3000);
    const waitStart = performance.now();
    const result = await waitForNetworkQuiet(network, { quietWindowMs: 20, capMs: 4000, startedAt: loadedAt });
    assert.equal(result.reason, 'cap');
    assert.ok(result.elapsedMs >= 3995, `settle ${result.elapsedMs} ms`);
    // About 1000 ms more, not a whole cap of 4000 from the call (the margin is for a busy machine).
    assert.ok(performance.now() - waitStart < 3000, `waited ${Math.round(performance.now() - waitStart)} ms more`);
  });
});

describe('waitForNetworkQuiet with an early window', () => {
  /** An early window whose page always gives `answer`, counting how often it was asked. */
  const answering = (windowMs: number, answer: Awaited<ReturnType<EarlyQuiet['check']>>) => {
    const early = {
      windowMs,
      asked: 0,
      async check() {
        early.asked++;
        return answer;
      },
    };
    return early;
  };

  it('ends after the early window when the page says it is quiet, and says it ended early', async () => {
    const early = answering(40, { quiet: true });
    // The full window is long, so that a busy machine's late timers cannot let it end first.
    const result = await waitForNetworkQuiet(fakeNetwork(0), { quietWindowMs: 10_000, capMs: 20_000, early });
    assert.equal(result.reason, 'idle');
    assert.equal(result.early, true);
    assert.equal(early.asked, 1);
    assert.ok(result.elapsedMs >= 40 && result.elapsedMs < 10_000, `elapsed ${result.elapsedMs}`);
  });

  it('waits the full window when the page is not quiet, and asks again when told to', async () => {
    const early = answering(20, { quiet: false, askAgainInMs: 30 });
    // The second ask is due 50 ms in; the full window leaves a busy machine's timers 1.5 s to get there.
    const result = await waitForNetworkQuiet(fakeNetwork(0), { quietWindowMs: 1500, capMs: 10_000, early });
    assert.equal(result.reason, 'idle');
    assert.equal(result.early, undefined);
    assert.ok(result.elapsedMs >= 1500, `elapsed ${result.elapsedMs}`);
    assert.ok(early.asked >= 2, `asked ${early.asked} times`);
  });

  it('drops an answer about a quiet stretch a request ended, and counts the early window again after it', async () => {
    const network = fakeNetwork(0);
    const checks: number[] = [];
    const started = performance.now();
    const result = await waitForNetworkQuiet(network, {
      quietWindowMs: 10_000, // long, so that only the early window can end it
      capMs: 20_000,
      early: {
        windowMs: 30,
        async check() {
          checks.push(performance.now() - started);
          if (checks.length === 1) {
            network.set(1); // a request starts while the page is asked
            setTimeout(() => network.set(0), 40);
          }
          return { quiet: true };
        },
      },
    });
    assert.equal(result.early, true);
    assert.equal(checks.length, 2);
    assert.ok(result.elapsedMs >= 30 + 40 + 30, `elapsed ${result.elapsedMs}: the second window follows the request`);
  });
});

describe('combinedInflight', () => {
  it('is quiet only when every source is: a pending timer holds the window open like a request', async () => {
    const requests = fakeNetwork(0);
    const timers = fakeNetwork(1); // a timer the page scheduled after load
    const both = combinedInflight(requests, timers);
    setTimeout(() => {
      requests.set(1); // the timer fired and started its fetch
      timers.set(0);
    }, 60);
    setTimeout(() => requests.set(0), 100);
    const result = await waitForNetworkQuiet(both, { quietWindowMs: 50, capMs: 5000 });
    assert.equal(result.reason, 'idle');
    assert.ok(result.elapsedMs >= 145, `elapsed ${result.elapsedMs}: the window counts from the end of the fetch`);
  });

  it('removes its listeners from every source', () => {
    const a = fakeNetwork(0);
    const b = fakeNetwork(0);
    let calls = 0;
    const stop = combinedInflight(a, b).onInflightChange(() => calls++);
    a.set(1);
    b.set(1);
    stop();
    a.set(0);
    b.set(0);
    assert.equal(calls, 2);
  });
});
