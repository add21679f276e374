import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/infra/free-port.js';
import { startInfra, type Infra } from '../support/harness.js';
import { type ServiceProcess, startServiceProcess } from '../support/service-process.js';

const ADMIN = 'two-process-admin-key-0123';
const json = { 'content-type': 'application/json' };

/** Two API OS processes on one NATS and one Postgres, as a scaled deployment runs them. */
describe('two API processes', () => {
  let infra: Infra;
  let a: ServiceProcess;
  let b: ServiceProcess;
  before(async () => {
    infra = await startInfra();
    const env = {
      NATS_URL: infra.nats.url,
      DATABASE_URL: await infra.freshDatabase(),
      ADMIN_KEY: ADMIN,
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      SIGNING_KEY: 'none',
      TSA_URL: 'none',
      DATA_DIR: infra.dir,
      RATE_LIMIT_TENANT_PER_MIN: '500',
      CAPTURE_BACKLOG_MAX: '100000',
    };
    // a projects; b is API only (its reads wait for a's projector).
    a = await startServiceProcess({ ...env, ROLES: 'api,projector' }, await freePort());
    b = await startServiceProcess({ ...env, ROLES: 'api' }, await freePort());
  });
  after(async () => {
    await Promise.all([a.kill('SIGTERM'), b.kill('SIGTERM')]);
    await infra.stop();
  });

  const admin = (base: string, method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, ...json },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('admit exactly the quota under hundreds of concurrent submissions, and the usage projection says so', async () => {
    const { key } = (await (
      await admin(a.baseUrl, 'POST', '/v1/admin/keys', { tenantId: 'exact', scopes: ['capture'], name: 'k' })
    ).json()) as { key: string };
    assert.equal(
      (await admin(a.baseUrl, 'PUT', '/v1/admin/tenants/exact/config', { quotas: { capturesPerMonth: 75 } })).status,
      200,
    );
    const statuses = await Promise.all(
      Array.from({ length: 400 }, async (_, i) => {
        const r = await fetch(`${(i % 2 ? a : b).baseUrl}/v1/captures`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, ...json },
          body: JSON.stringify({ url: `http://127.0.0.1:9/${i}` }),
        });
        await r.arrayBuffer();
        return r.status;
      }),
    );
    assert.equal(statuses.filter((s) => s === 202).length, 75);
    assert.equal(statuses.filter((s) => s === 429).length, 325);
    const usage = (await (
      await fetch(`${b.baseUrl}/v1/account/usage`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as { captures: unknown };
    assert.deepEqual(usage.captures, { used: 75, limit: 75, remaining: 0 });
  });

  it('share one rolling tenant rate limit', async () => {
    const { key } = (await (
      await admin(a.baseUrl, 'POST', '/v1/admin/keys', { tenantId: 'shared-limit', scopes: ['read'], name: 'k' })
    ).json()) as { key: string };
    const call = async (i: number) => {
      const p = i % 2 ? a : b;
      const r = await fetch(`${p.baseUrl}/v1/captures?limit=1`, { headers: { authorization: `Bearer ${key}` } });
      const body = (await r.json()) as { limitType?: string };
      return { process: p === a ? 'a' : 'b', status: r.status, limitType: body.limitType };
    };
    // 500 per rolling minute for the tenant, whichever process serves it: the exact log of spec 8.1 (README, Rate
    // limits), so every call within 60 s of the burst's first is refused, at either process.
    const started = Date.now();
    const burst = await Promise.all(Array.from({ length: 500 }, (_, i) => call(i)));
    const ok = burst.filter((r) => r.status === 200).length;
    assert.equal(ok, 500);
    const after = [];
    for (let i = 0; i < 20; i++) after.push(await call(i));
    // Only a machine so busy that the burst's first tokens left the window can have freed any.
    if (Date.now() - started < 60_000)
      assert.equal(after.filter((r) => r.status === 200).length, 0, JSON.stringify(after));
    const limited = after.filter((r) => r.status === 429);
    assert.ok(limited.every((r) => r.limitType === 'tenant'));
    assert.ok(
      limited.some((r) => r.process === 'a') && limited.some((r) => r.process === 'b'),
      'both processes enforce the shared limit',
    );
  });
});
