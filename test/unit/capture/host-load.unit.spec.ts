import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createStarvationMeter, startHostLoad } from '../../../src/capture/host-load.js';
import { withTimeout } from '../../../src/capture/step-timeout.js';

const ms = (n: number) => n * 1e6; // run_delay is in ns

describe('starvation meter', () => {
  it('runs the page clock at wall speed while nothing waits for a CPU', () => {
    const m = createStarvationMeter(0);
    m.sample(0, new Map([[1, 0]]));
    m.sample(1000, new Map([[1, 0]]));
    assert.equal(m.pageTimeAt(1000), 1000);
    assert.equal(m.starvation(), 0);
  });

  it('takes the longest wait of any watched process off the page clock', () => {
    const m = createStarvationMeter(0);
    m.sample(
      0,
      new Map([
        [1, 0],
        [2, 0],
      ]),
    );
    m.sample(
      1000,
      new Map([
        [1, ms(300)],
        [2, ms(750)],
      ]),
    );
    assert.equal(m.pageTimeAt(1000), 250);
    assert.ok(m.starvation() > 0);
    // Between samples the clock runs on at wall speed.
    assert.equal(m.pageTimeAt(1100), 350);
  });

  it('never takes off more than the wall time that passed, and counts nothing for a process first seen', () => {
    const m = createStarvationMeter(0);
    m.sample(0, new Map([[1, 0]]));
    m.sample(
      500,
      new Map([
        [1, ms(5000)],
        [3, ms(99_999)],
      ]),
    );
    assert.equal(m.pageTimeAt(500), 0);
    m.sample(
      1500,
      new Map([
        [1, ms(5000)],
        [3, ms(99_999)],
      ]),
    );
    assert.equal(m.pageTimeAt(1500), 1000);
  });

  it('starvation tends to the fraction of time spent waiting', () => {
    const m = createStarvationMeter(0);
    let delay = 0;
    for (let t = 0; t <= 60_000; t += 250) {
      m.sample(t, new Map([[1, ms(delay)]]));
      delay += 187.5; // 75 % of each interval
    }
    assert.ok(Math.abs(m.starvation() - 0.75) < 0.05, `starvation ${m.starvation()}`);
  });
});

describe('page-clock bounds', () => {
  it('a bound on the page clock outlasts the same bound on the wall clock while the host starves the capture', async () => {
    // A made-up host where every process waits 90 % of the time: page time runs at a tenth of wall time.
    let waited = 0;
    const started = performance.now();
    const load = startHostLoad({
      readRunDelay: () => (waited = 0.9 * (performance.now() - started) * 1e6),
      readChildren: () => [],
      sampleMs: 20,
    });
    try {
      const never = new Promise<never>(() => {});
      const wallStart = performance.now();
      await assert.rejects(
        withTimeout(never, 200, () => new Error('page bound'), undefined, load.clock),
        /page bound/,
      );
      const wall = performance.now() - wallStart;
      assert.ok(
        wall >= 1000,
        `a 200 ms page-time bound took ${Math.round(wall)} ms of wall time at a tenth of the speed`,
      );
      assert.ok(waited > 0);
    } finally {
      load.stop();
    }
  });

  it('reads the real schedstat of this process on Linux', () => {
    const load = startHostLoad();
    try {
      const a = load.clock.now();
      assert.ok(load.clock.now() >= a, 'monotonic');
      assert.ok(load.starvation() >= 0 && load.starvation() <= 1);
    } finally {
      load.stop();
    }
  });

  it("reads a browser's processes only while it is watched, and this process alone meanwhile", async () => {
    const browser = 4242;
    const renderer = 4243;
    const reads: number[] = [];
    const load = startHostLoad({
      readRunDelay: (pid) => {
        reads.push(pid);
        return 0;
      },
      readChildren: (pid) => (pid === browser ? [renderer] : []),
      sampleMs: 10,
      idleSampleMs: 60_000,
    });
    const waitFor = async (what: string, ok: () => boolean) => {
      const deadline = performance.now() + 30_000;
      while (!ok()) {
        if (performance.now() > deadline) throw new Error(`waited 30 s for ${what}; reads: ${reads.slice(-20)}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    try {
      await new Promise((r) => setTimeout(r, 100));
      assert.ok(!reads.includes(browser), 'no browser watched: its processes are not read');
      const idleReads = reads.length;
      assert.ok(idleReads <= 2, `idle, this process is read at the idle interval only (read ${idleReads} times)`);
      const unwatch = load.watch(browser);
      await waitFor('five samples of the watched browser', () => reads.filter((p) => p === renderer).length >= 5);
      unwatch();
      // A sample already running when it was unwatched may still read it once.
      const afterUnwatch = reads.filter((p) => p === browser).length;
      await new Promise((r) => setTimeout(r, 200));
      assert.ok(reads.filter((p) => p === browser).length <= afterUnwatch + 1, 'unwatched: no longer sampled');
    } finally {
      load.stop();
    }
  });
});
