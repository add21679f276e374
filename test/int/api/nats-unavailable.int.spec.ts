import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NATS_OUTAGE_MS } from '../../../src/api/app.js';
import { type EmbeddedNats, startEmbeddedNats } from '../../../src/infra/embedded-nats.js';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * While its nats-server is down (a restart, an election) the API answers what a client can act on: 503 with
 * Retry-After and the error body, never a 500 that reads like a bug; once NATS is back the same request succeeds.
 */
const waitFor = async (ok: () => Promise<boolean>, limitMs = 60_000) => {
  const deadline = Date.now() + limitMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 250));
  }
};

describe('the API while NATS is unavailable', () => {
  let s: TestServer;
  let key: string;
  let restarted: EmbeddedNats | undefined;

  before(async () => {
    s = await startTestServer({ ALLOW_PRIVATE_TARGETS: '127.0.0.1/32' });
    const r = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'nats-down', scopes: ['capture', 'read'], name: 'nats-down' },
    });
    assert.equal(r.status, 201, r.text);
    key = r.body.key as string;
  });
  // The same nats-server (its port, its store) again; started in `after` too, so a failed assertion cannot leave the
  // service's shutdown waiting on a connection that never comes back.
  const restartNats = async () => {
    restarted ??= await startEmbeddedNats(join(s.infra.dir, 'nats'), { port: Number(new URL(s.infra.nats.url).port) });
  };
  after(async () => {
    if (s && !restarted) await restartNats().catch(() => undefined);
    await s?.stop();
    await restarted?.stop();
  });

  it('answers 503 with Retry-After while its nats-server is stopped, and succeeds once it is back', async () => {
    const submit = () => s.call('POST', '/v1/captures', { token: key, body: { url: 'http://127.0.0.1:9/nats-down' } });
    await s.infra.nats.stop();
    // Health notices first (a ping unanswered); once the outage is longer than a reconnect, writes are refused at once.
    await waitFor(async () => (await s.call('GET', '/health')).status === 503);
    await new Promise((r) => setTimeout(r, NATS_OUTAGE_MS));
    const asked = Date.now();
    const down = await submit();
    process.stdout.write(`# 503 after ${Date.now() - asked} ms\n`);
    assert.equal(down.status, 503, down.text);
    assertProblem(down.body, 503);
    assert.match(String(down.body.detail), /NATS|unavailable|capacity/i);
    assert.ok(Number(down.headers.get('retry-after')) > 0, 'Retry-After says when to come back');
    const health = await s.call('GET', '/health');
    assert.equal(health.status, 503, health.text);
    assert.equal(health.body.status, 'degraded');
    // Reads served from the projections still answer.
    assert.equal((await s.call('GET', '/v1/captures', { token: key })).status, 200);

    // The nats-server comes back: the same request is accepted, without a restart of ours.
    await restartNats();
    const deadline = Date.now() + 120_000;
    let again = await submit();
    while (again.status !== 202 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1_000));
      again = await submit();
    }
    assert.equal(again.status, 202, again.text);
  });
});
