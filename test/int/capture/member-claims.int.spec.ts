import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MEMBER_CLAIMS_BUCKET, openMemberClaims } from '../../../src/capture/member-claims.js';
import type { NatsHandles } from '../../../src/infra/nats.js';
import { startNatsWithTwoClients } from '../../support/harness.js';

/** Claims on corroborated sets in their KV bucket, against a real nats-server. */
describe('member claims (real nats-server)', () => {
  let nats: Awaited<ReturnType<typeof startNatsWithTwoClients>>;
  let a: NatsHandles;
  let b: NatsHandles;
  before(async () => {
    nats = await startNatsWithTwoClients();
    ({ a, b } = nats);
  });
  after(async () => {
    await nats?.stop();
  });

  it('a worker claims a set once: the member it took first is the one it holds, also after a redelivery', async () => {
    const claims = await openMemberClaims(a.nc, 1);
    assert.equal(await claims.claim('cor_1', 'wrk_a', 'cap_1'), 'cap_1');
    assert.equal(await claims.claim('cor_1', 'wrk_a', 'cap_1'), 'cap_1', 'the same member again is still its own');
    assert.equal(await claims.claim('cor_1', 'wrk_a', 'cap_2'), 'cap_1', 'another member of the set: it holds cap_1');
    assert.equal(await claims.claim('cor_1', 'wrk_b', 'cap_2'), 'cap_2', 'another worker takes it');
    assert.equal(await claims.claim('cor_2', 'wrk_a', 'cap_3'), 'cap_3', 'another set is free');
    const info = await a.jsm.streams.info(`KV_${MEMBER_CLAIMS_BUCKET}`);
    assert.equal(info.config.max_msgs_per_subject, 1);
    assert.ok(info.config.max_age > 0, 'claims fall off by age');
  });

  it('of two members claimed at once from two connections, exactly one is held', async () => {
    const [one, two] = [await openMemberClaims(a.nc, 1), await openMemberClaims(b.nc, 1)];
    for (let i = 0; i < 20; i++) {
      const held = await Promise.all([
        one.claim(`cor_race${i}`, 'wrk_a', `cap_x${i}`),
        two.claim(`cor_race${i}`, 'wrk_a', `cap_y${i}`),
      ]);
      assert.equal(held[0], held[1], `race ${i}: both answer the one claim that was written`);
    }
  });
});
