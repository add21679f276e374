import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createKvRateLimiter, EXACT_LOG_MAX, retryAfter } from '../../../src/api/kv-rate-limiter.js';
import { startNatsOnly } from '../../support/harness.js';

describe('rate limits shared through NATS KV', () => {
  let env: Awaited<ReturnType<typeof startNatsOnly>>;
  let a: NatsConnection;
  let b: NatsConnection;
  before(async () => {
    env = await startNatsOnly();
    a = await connect({ servers: env.nats.url });
    b = await connect({ servers: env.nats.url });
  });
  after(async () => {
    await a.close();
    await b.close();
    await env.stop();
  });

  it('admits exactly the limit when two processes race on one key', async () => {
    const t = () => 1_000_000 * 60_000 + 30_000;
    const [la, lb] = await Promise.all([createKvRateLimiter(a, { now: t }), createKvRateLimiter(b, { now: t })]);
    const results = await Promise.all(
      Array.from({ length: 400 }, (_, i) => (i % 2 ? la : lb).take('tenant:hot', 150, 60_000)),
    );
    assert.equal(results.filter((r) => r.allowed).length, 150);
    const refused = results.find((r) => !r.allowed)!;
    // All 150 were taken at one instant: the first leaves the rolling window 60 s later.
    assert.equal(refused.retryAfterSec, 60);
  });

  it('writes without reading first on a key it last wrote, and still counts what another process took meanwhile', async () => {
    const t = () => 4_000_000 * 60_000 + 30_000;
    const [la, lb] = await Promise.all([createKvRateLimiter(a, { now: t }), createKvRateLimiter(b, { now: t })]);
    for (let i = 0; i < 3; i++) assert.equal((await la.take('ip:poller', 10, 60_000)).allowed, true);
    // A poller's next take: one CAS publish (its request), no read of the log.
    const sent = a.stats().outMsgs;
    assert.equal((await la.take('ip:poller', 10, 60_000)).allowed, true);
    assert.equal(a.stats().outMsgs - sent, 1);
    // The other process takes the rest; the first one's remembered log (4) is stale, its CAS fails and it reads again.
    for (let i = 0; i < 6; i++) assert.equal((await lb.take('ip:poller', 10, 60_000)).allowed, true);
    assert.equal((await la.take('ip:poller', 10, 60_000)).allowed, false);
    assert.equal((await lb.take('ip:poller', 10, 60_000)).allowed, false);
  });

  it('takes a batch of N tokens all or nothing', async () => {
    const t = () => 2_000_000 * 60_000;
    const l = await createKvRateLimiter(a, { now: t });
    assert.equal((await l.take('tenant:batch', 10, 60_000, 8)).allowed, true);
    assert.equal((await l.take('tenant:batch', 10, 60_000, 3)).allowed, false);
    assert.equal((await l.take('tenant:batch', 10, 60_000, 2)).allowed, true);
  });

  it('above EXACT_LOG_MAX, counts a sliding window: the previous window weighs by how much of it still overlaps', async () => {
    const big = EXACT_LOG_MAX + 1000;
    let t = 3_000_000 * 60_000 + 59_000;
    const l = await createKvRateLimiter(a, { now: () => t });
    assert.equal((await l.take('ip:x', big, 60_000, big)).allowed, true);
    t += 2_000; // 1 s into the next window: big × 59/60 still weigh
    assert.equal((await l.take('ip:x', big, 60_000, Math.ceil(big / 30))).allowed, false);
    t += 30_000; // half way: half weighs
    assert.equal((await l.take('ip:x', big, 60_000, Math.floor(big / 2) - 1)).allowed, true);
  });

  it('computes Retry-After from the decaying previous window', () => {
    assert.equal(retryAfter(10, 1, 10, 5, 0.25, 60_000), 21); // wait until 10·(1−f) ≤ 4: f = 0.6
    assert.equal(retryAfter(10, 1, 10, 0, 0.5, 60_000), 1); // already fits: never below 1 s
    assert.equal(retryAfter(10, 1, 0, 10, 0.25, 60_000), 45 + 6);
  });

  it('lets a take through when NATS cannot be reached, unless it is marked failClosed', async () => {
    const lonely = await connect({ servers: env.nats.url });
    const errors: unknown[] = [];
    const limiter = await createKvRateLimiter(lonely, { onError: (err) => errors.push(err) });
    await lonely.close();
    assert.equal((await limiter.take('tenant:x', 10, 60_000)).allowed, true);
    const closed = await limiter.take('admin-keys:127.0.0.1', 10, 60_000, 1, { failClosed: true });
    assert.equal(closed.allowed, false);
    assert.ok(closed.retryAfterSec >= 1);
    assert.equal(errors.length, 2);
  });

  it('answers a take of 0 tokens with whether one more would pass, taking nothing', async () => {
    const t = () => 2_000_000 * 60_000 + 30_000;
    const limiter = await createKvRateLimiter(a, { now: t });
    for (let i = 0; i < 3; i++) assert.equal((await limiter.take('peek', 3, 60_000, 0)).allowed, true);
    for (let i = 0; i < 3; i++) assert.equal((await limiter.take('peek', 3, 60_000)).allowed, true);
    assert.equal((await limiter.take('peek', 3, 60_000, 0)).allowed, false);
  });

  /** spec 8.1: 5 per 60 s per IP on the operator key endpoints, exact across API processes. */
  describe('the operator key limit, exact across two processes', () => {
    const t0 = 5_000_000 * 60_000 + 47_000; // any instant: the log has no fixed windows
    let t = t0;
    let la: Awaited<ReturnType<typeof createKvRateLimiter>>;
    let lb: Awaited<ReturnType<typeof createKvRateLimiter>>;
    before(async () => {
      [la, lb] = await Promise.all([
        createKvRateLimiter(a, { now: () => t }),
        createKvRateLimiter(b, { now: () => t }),
      ]);
    });
    const take = (l: typeof la, key: string) => l.take(key, 5, 60_000, 1, { failClosed: true });

    it('never refuses calls paced 13 s apart, alternating between the processes', async () => {
      for (let i = 0; i < 20; i++) {
        t = t0 + i * 13_000;
        const d = await take(i % 2 ? la : lb, 'admin-keys:10.0.0.1');
        assert.equal(d.allowed, true, `call ${i + 1} at ${i * 13} s was refused (retry in ${d.retryAfterSec} s)`);
      }
    });

    it('refuses the sixth call inside 60 s at either process, and frees the slot at exactly 60 s after the first', async () => {
      for (let i = 0; i < 5; i++) {
        t = t0 + i * 13_000;
        assert.equal((await take(i % 2 ? la : lb, 'admin-keys:10.0.0.2')).allowed, true);
      }
      t = t0 + 59_999;
      const [x, y] = [await take(la, 'admin-keys:10.0.0.2'), await take(lb, 'admin-keys:10.0.0.2')];
      assert.deepEqual([x.allowed, y.allowed], [false, false]);
      assert.equal(x.retryAfterSec, 1);
      t = t0 + 60_000;
      assert.equal((await take(lb, 'admin-keys:10.0.0.2')).allowed, true);
      assert.equal((await take(la, 'admin-keys:10.0.0.2')).allowed, false);
    });

    it('admits exactly 5 of 40 concurrent calls from two processes', async () => {
      t = t0;
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => take(i % 2 ? la : lb, 'admin-keys:10.0.0.3')),
      );
      assert.equal(results.filter((r) => r.allowed).length, 5);
    });
  });
});
