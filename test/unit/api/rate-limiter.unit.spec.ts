import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryRateLimiter, EXACT_LOG_MAX } from '../../../src/api/rate-limiter.js';
import { decodeLog, encodeLog, takeFromLog } from '../../../src/api/rolling-log.js';

describe('rolling-window rate limiter', () => {
  it('allows `limit` in the window, refuses with the seconds until a slot frees, and rolls', async () => {
    let t = 0;
    const rl = createMemoryRateLimiter(() => t);
    for (let i = 0; i < 5; i++) {
      assert.equal((await rl.take('ip', 5, 60_000)).allowed, true);
      t += 1000;
    }
    const refused = await rl.take('ip', 5, 60_000);
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterSec, 55); // first token (t=0) leaves at 60 s; now is 5 s
    t = 60_001;
    assert.equal((await rl.take('ip', 5, 60_000)).allowed, true);
  });

  it('above EXACT_LOG_MAX counts the two-window counter, as the shared limiter does: the previous minute weighs by its overlap', async () => {
    let t = 0;
    const rl = createMemoryRateLimiter(() => t);
    const limit = EXACT_LOG_MAX + 1000;
    assert.equal((await rl.take('t', limit, 60_000, limit)).allowed, true, 'the whole minute in one take');
    assert.equal((await rl.take('t', limit, 60_000)).allowed, false);
    t = 90_000; // half-way through the next minute: the previous one still weighs half
    assert.equal((await rl.take('t', limit, 60_000, Math.floor(limit / 2))).allowed, true);
    const refused = await rl.take('t', limit, 60_000, 10);
    assert.equal(refused.allowed, false);
    assert.ok(refused.retryAfterSec >= 1);
    t = 180_000; // two minutes on: nothing counts any more
    assert.equal((await rl.take('t', limit, 60_000, limit)).allowed, true);
  });

  it('takes N tokens at once for a batch, or none', async () => {
    const rl = createMemoryRateLimiter(() => 0);
    assert.equal((await rl.take('t', 10, 60_000, 8)).allowed, true);
    assert.equal((await rl.take('t', 10, 60_000, 3)).allowed, false);
    assert.equal((await rl.take('t', 10, 60_000, 2)).allowed, true);
  });
});

/** spec 8.1: the operator key limit is 5 per 60 s, rolling — exactly, at both edges. */
describe('the exact rolling log (5 per 60 s)', () => {
  const take = (log: number[], t: number) => takeFromLog(log, t, 5, 60_000, [1]);

  it('never refuses a client that paces itself 13 s apart, however long it runs', () => {
    let log: number[] = [];
    for (let i = 0; i < 50; i++) {
      const { stamps, decisions } = take(log, 1_700_000_000_000 + i * 13_000);
      assert.equal(decisions[0]!.allowed, true, `call ${i + 1} at ${i * 13} s was refused`);
      log = stamps;
    }
  });

  it('refuses the sixth call inside any 60 s, and frees the slot at exactly 60 s after the first', () => {
    const t0 = 1_700_000_000_000;
    let log: number[] = [];
    for (let i = 0; i < 5; i++) log = take(log, t0 + i * 13_000).stamps; // 0, 13, 26, 39, 52 s
    const sixth = take(log, t0 + 59_999);
    assert.equal(sixth.decisions[0]!.allowed, false);
    assert.equal(sixth.decisions[0]!.retryAfterSec, 1); // the first leaves at 60 s
    assert.equal(sixth.decisions[0]!.remaining, 0);
    const atSixty = take(log, t0 + 60_000);
    assert.equal(atSixty.decisions[0]!.allowed, true);
    // …and only that one slot: the next call in the same instant is the sixth in (0 s, 60 s].
    assert.equal(take(atSixty.stamps, t0 + 60_000).decisions[0]!.allowed, false);
  });

  it('refuses a burst of six at once, with the wait until the oldest leaves', () => {
    const { decisions } = takeFromLog([], 0, 5, 60_000, [1, 1, 1, 1, 1, 1]);
    assert.deepEqual(
      decisions.map((d) => d.allowed),
      [true, true, true, true, true, false],
    );
    assert.equal(decisions[5]!.retryAfterSec, 60);
  });

  it('a take of 0 asks without taking; a batch larger than the limit waits a whole window', () => {
    const peek = takeFromLog([], 0, 5, 60_000, [0]);
    assert.equal(peek.decisions[0]!.allowed, true);
    assert.deepEqual(peek.stamps, []);
    assert.equal(takeFromLog([], 0, 5, 60_000, [6]).decisions[0]!.retryAfterSec, 60);
  });

  it('keeps the log ascending when another process stamped a little later, and round-trips its text', () => {
    const { stamps } = takeFromLog([1_000, 5_000], 3_000, 5, 60_000, [1]);
    assert.deepEqual(stamps, [1_000, 3_000, 5_000]);
    const log = [1_700_000_000_000, 1_700_000_000_013, 1_700_000_013_000];
    assert.deepEqual(decodeLog(encodeLog(log)), log);
    assert.deepEqual(decodeLog(''), []);
    assert.deepEqual(decodeLog('not a log!'), []);
  });
});
