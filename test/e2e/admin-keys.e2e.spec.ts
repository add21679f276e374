import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../support/test-server.js';

describe('operator key endpoints (spec 4.11, 3.2, 5)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.stop());

  // The key endpoints allow 5 requests per minute per IP; each test sends from its own loopback address.
  let ipCounter = 10;
  const from = () => `127.0.0.${ipCounter++}`;

  it('creates a key shown once, lists it without the raw key, and revokes it idempotently', async () => {
    const h = from();
    const created = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      from: h,
      body: { tenantId: 'acme', scopes: ['capture', 'read'], name: 'CI key: main-1' },
    });
    assert.equal(created.status, 201);
    assert.match(created.body.key, /^svc_live_[0-9a-f]{64}$/);
    assert.match(created.body.keyHash, /^[0-9a-f]{64}$/);
    assert.equal(created.body.warning, 'Store this key now. It cannot be retrieved after this response.');
    assert.deepEqual(created.body.scopes, ['capture', 'read']);

    const list = await s.call('GET', '/v1/admin/keys?tenant=acme', { token: ADMIN_KEY, from: h });
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 1);
    assert.equal(list.body.data[0].createdBy, 'admin');
    assert.ok(!JSON.stringify(list.body).includes(created.body.key), 'listing never contains the raw key');

    const revoked = await s.call('DELETE', `/v1/admin/keys/${created.body.keyHash}`, { token: ADMIN_KEY, from: h });
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.revoked, true);
    const again = await s.call('DELETE', `/v1/admin/keys/${created.body.keyHash}`, { token: ADMIN_KEY, from: h });
    assert.equal(again.status, 200);
    assert.equal(again.body.revokedAt, revoked.body.revokedAt);

    const h2 = from();
    const active = await s.call('GET', '/v1/admin/keys?tenant=acme', { token: ADMIN_KEY, from: h2 });
    assert.equal(active.body.data.length, 0);
    const all = await s.call('GET', '/v1/admin/keys?tenant=acme&include=revoked', { token: ADMIN_KEY, from: h2 });
    assert.equal(all.body.data[0].revoked, true);
  });

  it('refuses bad input with the spec error body naming the field', async () => {
    const h = from();
    const bad = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      from: h,
      body: { tenantId: 'Bad Tenant', scopes: ['capture'], name: 'x' },
    });
    assert.equal(bad.status, 400);
    assertProblem(bad.body, 400);
    assert.match(bad.body.detail, /tenantId/);
    const noScopes = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      from: h,
      body: { tenantId: 'acme', scopes: [], name: 'x' },
    });
    assert.match(noScopes.body.detail, /scopes/);
    const wrongType = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      from: h,
      body: 'tenantId=acme',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(wrongType.status, 415);
    assertProblem(wrongType.body, 415);
    const malformed = await s.call('POST', '/v1/admin/keys', { token: ADMIN_KEY, from: from(), body: '{"tenantId":' });
    assert.equal(malformed.status, 400);
    assertProblem(malformed.body, 400);
  });

  it('401 without or with a wrong admin key; 404 for an unknown key hash', async () => {
    const h = from();
    assertProblem((await s.call('GET', '/v1/admin/keys', { from: h })).body, 401);
    assertProblem((await s.call('GET', '/v1/admin/keys', { token: 'nope', from: h })).body, 401);
    assertProblem(
      (await s.call('DELETE', `/v1/admin/keys/${'0'.repeat(64)}`, { token: ADMIN_KEY, from: h })).body,
      404,
    );
  });

  it('limits the key endpoints to 5 per minute per IP before checking the credential', async () => {
    const h = from();
    for (let i = 0; i < 5; i++)
      assert.equal((await s.call('GET', '/v1/admin/keys', { token: 'wrong', from: h })).status, 401);
    const limited = await s.call('GET', '/v1/admin/keys', { token: ADMIN_KEY, from: h });
    assert.equal(limited.status, 429);
    assertProblem(limited.body, 429);
    assert.equal(limited.body.limitType, undefined);
    assert.match(limited.headers.get('retry-after')!, /^\d+$/);
  });

  it('unknown routes and the health check', async () => {
    const missing = await s.call('GET', '/v1/nothing-here');
    assertProblem(missing.body, 404);
    const health = await s.call('GET', '/health');
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'ok');
    assert.match(health.body.legal.terms, /^http/);
    const openapi = await s.call('GET', '/openapi.json');
    assert.equal(openapi.status, 200);
    assert.ok(openapi.body.paths['/v1/admin/keys']);
  });
});

describe('operator endpoints without ADMIN_KEY', () => {
  it('answer 503 saying the admin API is not configured', async () => {
    const s = await startTestServer({ ADMIN_KEY: '' });
    try {
      const r = await s.call('GET', '/v1/admin/keys', { token: 'anything' });
      assert.equal(r.status, 503);
      assertProblem(r.body, 503);
      assert.match(r.body.detail, /admin API is not configured/);
    } finally {
      await s.stop();
    }
  });
});
