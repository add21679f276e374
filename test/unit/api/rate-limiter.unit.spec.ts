import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryRateLimiter } from '../../../src/api/rate-limiter.js';

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

  it('takes N tokens at once for a batch, or none', async () => {
    const rl = createMemoryRateLimiter(() => 0);
    assert.equal((await rl.take('t', 10, 60_000, 8)).allowed, true);
    assert.equal((await rl.take('t', 10, 60_000, 3)).allowed, false);
    assert.equal((await rl.take('t', 10, 60_000, 2)).allowed, true);
  });
});
