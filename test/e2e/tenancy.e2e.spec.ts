import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startInfra, type Infra } from '../support/harness.js';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../support/test-server.js';

const URL_OK = 'http://127.0.0.1:9/page';
let ip = 100;
const nextIp = () => `127.0.0.${ip++}`;

async function createKey(s: TestServer, tenantId: string, scopes: string[]): Promise<{ key: string; keyHash: string }> {
  const r = await s.call('POST', '/v1/admin/keys', {
    token: ADMIN_KEY,
    from: nextIp(),
    body: { tenantId, scopes, name: 'test key' },
  });
  assert.equal(r.status, 201, r.text);
  return r.body;
}
const putConfig = (s: TestServer, tenantId: string, body: unknown) =>
  s.call('PUT', `/v1/admin/tenants/${tenantId}/config`, { token: ADMIN_KEY, body });

describe('tenancy (spec 5, 7.3, 8.1, 8.2, 2.11)', () => {
  let infra: Infra;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    infra = await startInfra();
    const env = {
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      RATE_LIMIT_TENANT_PER_MIN: '100000',
      RATE_LIMIT_IP_PER_MIN: '100000',
      CAPTURE_BACKLOG_MAX: '100000',
    };
    a = await startTestServer(env, { infra });
    // A second API process on the same NATS and Postgres, with its own tenant actors.
    b = await startTestServer(env, { infra, databaseUrl: a.databaseUrl });
  });
  after(async () => {
    await b.stop();
    await a.stop();
    await infra.stop();
  });

  it('admits exactly N captures when hundreds race through two API processes', async () => {
    const { key } = await createKey(a, 'race', ['capture']);
    assert.equal((await putConfig(a, 'race', { quotas: { capturesPerMonth: 40 } })).status, 200);
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        (i % 2 ? a : b).call('POST', '/v1/captures', { token: key, body: { url: URL_OK } }),
      ),
    );
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((st) => st === 202).length, 40);
    assert.equal(statuses.filter((st) => st === 429).length, 260);
    const refused = results.find((r) => r.status === 429)!;
    assert.equal(refused.body.limitType, 'quota');
    assert.equal(refused.body.quota.resource, 'captures');
    assert.equal(refused.body.quota.limit, 40);
    assert.equal(refused.body.quota.remaining, 0);
    assert.ok(!Number.isNaN(Date.parse(refused.headers.get('retry-after')!)), 'Retry-After is an HTTP-date');
    const usage = await a.call('GET', '/v1/account/usage', { token: key });
    assert.deepEqual(usage.body.captures, { used: 40, limit: 40, remaining: 0 });
    const list = await b.call('GET', '/v1/captures?limit=100', { token: key });
    assert.equal(list.body.pagination.total, 40);
  });

  it('checks a batch against the quota as a whole', async () => {
    const { key } = await createKey(a, 'batchq', ['capture']);
    await putConfig(a, 'batchq', { quotas: { capturesPerMonth: 5 } });
    const ok = await a.call('POST', '/v1/captures/batch', {
      token: key,
      body: { urls: [{ url: URL_OK }, { url: URL_OK }, { url: URL_OK }] },
    });
    assert.equal(ok.status, 207);
    assert.equal(ok.headers.get('x-quota-remaining'), '2');
    const over = await a.call('POST', '/v1/captures/batch', {
      token: key,
      body: { urls: [{ url: URL_OK }, { url: URL_OK }, { url: URL_OK }] },
    });
    assert.equal(over.status, 429);
    assert.equal(over.body.limitType, 'quota');
    assert.equal(over.body.quota.requested, 3);
    assert.equal((await a.call('GET', '/v1/account/usage', { token: key })).body.captures.used, 3);
  });

  it('sets and clears quota overrides and the tier; validates the body', async () => {
    await createKey(a, 'cfg', ['read']);
    const set = await putConfig(a, 'cfg', { quotas: { capturesPerMonth: 7, storageBytes: 1000 } });
    assert.equal(set.status, 200);
    assert.deepEqual(set.body.config.quotas, { capturesPerMonth: 7, storageBytes: 1000 });
    assert.equal(set.body.tenantId, 'cfg');
    assert.ok(set.body.updatedAt);
    const cleared = await putConfig(a, 'cfg', { quotas: { capturesPerMonth: null } });
    assert.deepEqual(cleared.body.config.quotas, { capturesPerMonth: 200, storageBytes: 1_000_000_000 });
    const pro = await putConfig(a, 'cfg', { tier: 'pro', quotas: {} });
    assert.deepEqual(pro.body.config.quotas, { capturesPerMonth: 5000, storageBytes: 50_000_000_000 });
    for (const body of [
      { quotas: { capturesPerMonth: -1 } },
      { quotas: { capturesPerMonth: 1.5 } },
      { quotas: { capturesPerMonth: 'ten' } },
      { quotas: 3 },
      { tier: 'gold' },
    ]) {
      const r = await putConfig(a, 'cfg', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assertProblem(r.body, 400);
    }
    assert.equal((await putConfig(a, 'Bad Tenant', { quotas: {} })).status, 400);
    assertProblem((await a.call('PUT', '/v1/admin/tenants/cfg/config', { body: { quotas: {} } })).body, 401);
  });

  it('reports account and admin usage, counting authenticated calls', async () => {
    const { key } = await createKey(a, 'usage', ['capture']);
    await a.call('POST', '/v1/captures', { token: key, body: { url: URL_OK } });
    const acct = await a.call('GET', '/v1/account/usage', { token: key });
    assert.equal(acct.status, 200);
    assert.equal(acct.body.tenantId, 'usage');
    assert.match(acct.body.period, /^\d{4}-\d{2}$/);
    assert.equal(acct.body.tierDisplay, 'Starter (free)');
    assert.deepEqual(acct.body.captures, { used: 1, limit: 200, remaining: 199 });
    assert.equal(acct.body.storageBytes.limit, 1_000_000_000);
    assert.match(acct.body.resetsAt, /-01T00:00:00\.000Z$/);
    await a.server.stop().catch(() => undefined); // flushes the API-call counter
    a = await startTestServer({ ALLOW_PRIVATE_TARGETS: '127.0.0.1/32' }, { infra, databaseUrl: b.databaseUrl });
    const admin = await a.call('GET', '/v1/admin/usage?tenant=usage', { token: ADMIN_KEY });
    assert.equal(admin.status, 200, admin.text);
    assert.equal(admin.body.captureCount, 0); // submitted but not completed
    assert.ok(admin.body.apiCallCount >= 2, JSON.stringify(admin.body));
    assert.ok(admin.body.updatedAt);
    const empty = await a.call('GET', '/v1/admin/usage?tenant=usage&period=2020-01', { token: ADMIN_KEY });
    assert.deepEqual([empty.body.captureCount, empty.body.apiCallCount, empty.body.updatedAt], [0, 0, null]);
    assertProblem((await a.call('GET', '/v1/admin/usage', { token: ADMIN_KEY })).body, 400);
    assertProblem((await a.call('GET', '/v1/admin/usage?tenant=usage&period=2026-13', { token: ADMIN_KEY })).body, 400);
    assertProblem((await a.call('GET', '/v1/admin/usage?tenant=nobody-here', { token: ADMIN_KEY })).body, 404);
  });

  it('enforces scopes: capture implies read, admin grants nothing', async () => {
    const cap = await createKey(a, 'scopes', ['capture']);
    const read = await createKey(a, 'scopes', ['read']);
    const admin = await createKey(a, 'scopes', ['admin']);
    assert.equal((await a.call('GET', '/v1/captures', { token: cap.key })).status, 200);
    assert.equal((await a.call('GET', '/v1/captures', { token: read.key })).status, 200);
    assertProblem((await a.call('POST', '/v1/captures', { token: read.key, body: { url: URL_OK } })).body, 403);
    assertProblem((await a.call('GET', '/v1/captures', { token: admin.key })).body, 403);
    assertProblem((await a.call('GET', '/v1/admin/keys', { token: admin.key, from: nextIp() })).body, 401);
  });

  it('revocation takes effect at once in every API process', async () => {
    const { key, keyHash } = await createKey(a, 'revoke', ['read']);
    assert.equal((await b.call('GET', '/v1/captures', { token: key })).status, 200); // cached in b
    assert.equal(
      (await a.call('DELETE', `/v1/admin/keys/${keyHash}`, { token: ADMIN_KEY, from: nextIp() })).status,
      200,
    );
    await new Promise((r) => setTimeout(r, 200));
    assertProblem((await b.call('GET', '/v1/captures', { token: key })).body, 401);
    assertProblem((await a.call('GET', '/v1/captures', { token: key })).body, 401);
  });
});

describe('rate limits (spec 8.1, 7.3)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      RATE_LIMIT_TENANT_PER_MIN: '6',
      RATE_LIMIT_IP_PER_MIN: '4',
    });
  });
  after(async () => s.stop());

  it('limits a tenant with limitType tenant; a batch of N takes N tokens', async () => {
    const { key } = await createKey(s, 'limited', ['capture']);
    const batch = await s.call('POST', '/v1/captures/batch', {
      token: key,
      body: { urls: Array.from({ length: 5 }, () => ({ url: URL_OK })) },
    });
    assert.equal(batch.status, 207);
    assert.equal(batch.body.summary.accepted, 5);
    assert.equal((await s.call('POST', '/v1/captures', { token: key, body: { url: URL_OK } })).status, 202); // 6th token
    const next = await s.call('POST', '/v1/captures', { token: key, body: { url: URL_OK } });
    assert.equal(next.status, 429);
    assert.equal(next.body.limitType, 'tenant');
    assert.match(next.headers.get('retry-after')!, /^\d+$/);
  });

  it('charges refused batch items too: a batch is no free way to probe which names resolve where', async () => {
    const { key } = await createKey(s, 'prober', ['capture']);
    // Five URLs the policy refuses (127.0.0.2 is outside ALLOW_PRIVATE_TARGETS), then a sixth that would pass.
    const urls = [...Array.from({ length: 5 }, (_, i) => ({ url: `http://127.0.0.2:9/p${i}` })), { url: URL_OK }];
    const batch = await s.call('POST', '/v1/captures/batch', { token: key, body: { urls } });
    assert.equal(batch.status, 207);
    assert.deepEqual(
      batch.body.items.map((it: { status: number }) => it.status),
      [422, 422, 422, 422, 422, 202],
    );
    const next = await s.call('POST', '/v1/captures', { token: key, body: { url: URL_OK } });
    assert.equal(next.status, 429, 'the six items used the six tokens');
    assert.equal(next.body.limitType, 'tenant');
  });

  it('charges failed authentications to the address, which then gets 429 before any key is looked up', async () => {
    const from = nextIp();
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) {
      codes.push((await s.call('GET', '/v1/captures', { token: `svc_live_${'0'.repeat(40)}${i}`, from })).status);
    }
    assert.deepEqual(codes, [401, 401, 401, 401, 429, 429]);
    // Another address is not affected.
    assert.equal(
      (await s.call('GET', '/v1/captures', { token: `svc_live_${'0'.repeat(41)}`, from: nextIp() })).status,
      401,
    );
  });

  it('limits unauthenticated reads per IP without limitType', async () => {
    const from = nextIp();
    const codes: number[] = [];
    for (let i = 0; i < 5; i++)
      codes.push((await s.call('GET', '/v1/captures/cap_00000000000000000000000000000000/status', { from })).status);
    assert.deepEqual(codes, [404, 404, 404, 404, 429]);
    const r = await s.call('GET', '/v1/captures/cap_00000000000000000000000000000000/status', { from });
    assert.equal(r.body.limitType, undefined);
    assert.match(r.headers.get('retry-after')!, /^\d+$/);
  });
});

describe('CORS and legacy single-key mode', () => {
  it('answers preflights from allowed origins only; legacy key works alone and is refused once ADMIN_KEY is set', async () => {
    const legacy = await startTestServer({
      ADMIN_KEY: '',
      CAPTURE_API_KEY: 'legacy-secret-key',
      CORS_ORIGINS: 'https://app.example',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    });
    try {
      const ok = await legacy.call('OPTIONS', '/v1/captures', {
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(ok.status, 204);
      assert.equal(ok.headers.get('access-control-allow-origin'), 'https://app.example');
      const no = await legacy.call('OPTIONS', '/v1/captures', {
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(no.status, 403);
      assert.equal(no.headers.get('access-control-allow-origin'), null);
      const sub = await legacy.call('POST', '/v1/captures', {
        token: 'legacy-secret-key',
        headers: { origin: 'https://app.example' },
        body: { url: URL_OK },
      });
      assert.equal(sub.status, 202, sub.text);
      assert.equal(sub.headers.get('access-control-allow-origin'), 'https://app.example');
    } finally {
      await legacy.stop();
    }
    const managed = await startTestServer({
      CAPTURE_API_KEY: 'legacy-secret-key',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    });
    try {
      assertProblem(
        (await managed.call('POST', '/v1/captures', { token: 'legacy-secret-key', body: { url: URL_OK } })).body,
        401,
      );
    } finally {
      await managed.stop();
    }
  });
});
