import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createKvRateLimiter, retryAfter } from '../../../src/api/kv-rate-limiter.js';
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
    // A fixed instant in the middle of a window: no previous-window weight, no boundary crossing.
    const t = () => 1_000_000 * 60_000 + 30_000;
    const [la, lb] = await Promise.all([createKvRateLimiter(a, { now: t }), createKvRateLimiter(b, { now: t })]);
    const results = await Promise.all(Array.from({ length: 400 }, (_, i) => (i % 2 ? la : lb).take('tenant:hot', 150, 60_000)));
    assert.equal(results.filter((r) => r.allowed).length, 150);
    const refused = results.find((r) => !r.allowed)!;
    // The rest of this window, then until 150·(1−f) ≤ 149 in the next one (0.4 s): 31 s.
    assert.equal(refused.retryAfterSec, 31);
  });

  it('writes without reading first on a key it last wrote, and still counts what another process took meanwhile', async () => {
    const t = () => 4_000_000 * 60_000 + 30_000;
    const [la, lb] = await Promise.all([createKvRateLimiter(a, { now: t }), createKvRateLimiter(b, { now: t })]);
    for (let i = 0; i < 3; i++) assert.equal((await la.take('ip:poller', 10, 60_000)).allowed, true);
    // A poller's next take: one CAS publish (its request), no reads of the two windows.
    const sent = a.stats().outMsgs;
    assert.equal((await la.take('ip:poller', 10, 60_000)).allowed, true);
    assert.equal(a.stats().outMsgs - sent, 1);
    // The other process takes the rest; the first one's remembered count (4) is stale, its CAS fails and it reads again.
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

  it('rolls: the previous window counts by how much of it still overlaps', async () => {
    let t = 3_000_000 * 60_000 + 59_000;
    const l = await createKvRateLimiter(a, { now: () => t });
    for (let i = 0; i < 10; i++) assert.equal((await l.take('ip:x', 10, 60_000)).allowed, true);
    t += 2_000; // 1 s into the next window: 10 × 59/60 still weigh
    assert.equal((await l.take('ip:x', 10, 60_000)).allowed, false);
    t += 30_000; // half way: 5 weigh
    assert.equal((await l.take('ip:x', 10, 60_000)).allowed, true);
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
});
