import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import type { KeyResolver } from '../../../src/api/auth.js';
import {
  CSRF_REFUSAL,
  checkUnsafeCookieRequest,
  clearedCookie,
  readCookie,
  readCookies,
  sessionCookie,
  sessionIdOf,
} from '../../../src/api/console-cookies.js';
import { createOperatorGuard } from '../../../src/api/operator-auth.js';
import { HttpProblem } from '../../../src/api/problem.js';
import { createMemoryRateLimiter } from '../../../src/api/rate-limiter.js';
import { createTenantGuard } from '../../../src/api/tenant-auth.js';
import type { Principal } from '../../../src/application/caller.js';
import { createConsoleSessions, createMemorySessionStore } from '../../../src/application/console-sessions.js';
import { loadConfig } from '../../../src/config/config.js';
import { fixedClock } from '../../../src/domain/clock.js';

const BASE = 'https://ledger.example';
/** A request as it reached us at http://127.0.0.1:8080 (the Host the browser addressed). */
const request = (o: { method?: string; headers?: Record<string, string> } = {}) =>
  ({
    method: o.method ?? 'GET',
    headers: o.headers ?? {},
    ip: '192.0.2.1',
    protocol: 'http',
    host: '127.0.0.1:8080',
  }) as unknown as FastifyRequest;

const refusal = async (p: Promise<unknown> | (() => unknown)): Promise<HttpProblem> => {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    if (err instanceof HttpProblem) return err;
    throw err;
  }
  assert.fail('expected a refusal');
};

describe('console cookies', () => {
  it('reads a cookie among others', () => {
    assert.equal(readCookie('a=1; cl_tenant_session=abc; b=2', 'cl_tenant_session'), 'abc');
    assert.equal(readCookie('xcl_tenant_session=abc', 'cl_tenant_session'), undefined);
    assert.equal(readCookie(undefined, 'cl_tenant_session'), undefined);
  });

  it('sets HttpOnly, SameSite=Strict, Path=/, and Secure with the __Host- prefix only under TLS; clears with Max-Age=0', () => {
    assert.equal(
      sessionCookie('tenant', 'id', { secure: true }),
      '__Host-cl_tenant_session=id; Path=/; HttpOnly; SameSite=Strict; Secure',
    );
    assert.equal(
      sessionCookie('operator', 'id', { secure: false }),
      'cl_operator_session=id; Path=/; HttpOnly; SameSite=Strict',
    );
    assert.match(clearedCookie('tenant', { secure: false }), /^cl_tenant_session=; .*Max-Age=0/);
    assert.match(clearedCookie('tenant', { secure: true }), /^__Host-cl_tenant_session=; .*Max-Age=0; Secure$/);
  });

  it('reads every cookie of a name, and refuses a session id sent twice (one planted by another page)', async () => {
    assert.deepEqual(readCookies('cl_tenant_session=a; x=1; cl_tenant_session=b', 'cl_tenant_session'), ['a', 'b']);
    const twice = request({ headers: { cookie: 'cl_tenant_session=planted; cl_tenant_session=mine' } });
    const refused = await refusal(() => sessionIdOf(twice, 'tenant', { secure: false }));
    assert.equal(refused.status, 401);
    assert.equal(refused.body().sessionCookie, 'duplicated');
    assert.deepEqual(refused.headers, {}, 'nothing cleared: clearing ours would leave the planted one alone');
    assert.equal(
      sessionIdOf(request({ headers: { cookie: 'cl_tenant_session=mine' } }), 'tenant', { secure: false }),
      'mine',
    );
    // Under https only the __Host- name counts: a bare one beside it is no second session cookie, and is not read.
    const https = request({ headers: { cookie: 'cl_tenant_session=planted; __Host-cl_tenant_session=mine' } });
    assert.equal(sessionIdOf(https, 'tenant', { secure: true }), 'mine');
  });

  it('lets safe methods through, and wants the CSRF token and our Origin on unsafe ones', async () => {
    checkUnsafeCookieRequest(request(), 'tok', BASE);
    const missing = await refusal(() => checkUnsafeCookieRequest(request({ method: 'POST' }), 'tok', BASE));
    assert.equal(missing.status, 403);
    assert.equal(missing.detail, CSRF_REFUSAL);
    const wrong = await refusal(() =>
      checkUnsafeCookieRequest(request({ method: 'DELETE', headers: { 'x-csrf-token': 'tok2' } }), 'tok', BASE),
    );
    assert.equal(wrong.detail, CSRF_REFUSAL);
    const foreign = await refusal(() =>
      checkUnsafeCookieRequest(
        request({ method: 'POST', headers: { 'x-csrf-token': 'tok', origin: 'https://evil.example' } }),
        'tok',
        BASE,
      ),
    );
    assert.equal(foreign.status, 403);
    checkUnsafeCookieRequest(
      request({ method: 'POST', headers: { 'x-csrf-token': 'tok', origin: BASE } }),
      'tok',
      BASE,
    );
    checkUnsafeCookieRequest(request({ method: 'POST', headers: { 'x-csrf-token': 'tok' } }), 'tok', BASE);
    // The origin the request was sent to is the console's own, whatever PUBLIC_BASE_URL names.
    checkUnsafeCookieRequest(
      request({ method: 'POST', headers: { 'x-csrf-token': 'tok', origin: 'http://127.0.0.1:8080' } }),
      'tok',
      BASE,
    );
    const otherPort = await refusal(() =>
      checkUnsafeCookieRequest(
        request({ method: 'POST', headers: { 'x-csrf-token': 'tok', origin: 'http://127.0.0.1:8081' } }),
        'tok',
        BASE,
      ),
    );
    assert.equal(otherPort.status, 403);
  });
});

describe('the guards with console sessions', () => {
  const clock = fixedClock(new Date('2025-01-01T00:00:00Z'));
  const sessions = createConsoleSessions(createMemorySessionStore(), clock, { idleMs: 3_600_000, maxMs: 3_600_000 });
  const access = { sessions, publicBaseUrl: BASE };
  const config = (adminKey: string) => loadConfig({ ADMIN_KEY: adminKey, PUBLIC_BASE_URL: BASE, SIGNING_KEY: 'none' });
  const principal: Principal = { tenantId: 't1', scopes: ['read'], keyHash: 'b'.repeat(64) };
  let revoked = false;
  const resolver: KeyResolver = {
    resolve: async (token) => (token === 'svc_live_good' && !revoked ? principal : null),
    resolveHash: async (hash) => (hash === principal.keyHash && !revoked ? principal : null),
    evict: () => {},
  };

  it('ends operator sessions when ADMIN_KEY changes', async () => {
    const before = createOperatorGuard(config('admin-key-one-0123456789'), createMemoryRateLimiter(), access);
    const { id } = await before.openSession(request(), 'admin-key-one-0123456789');
    const cookie = { cookie: `__Host-cl_operator_session=${id}` };
    await before.credential()(request({ headers: cookie }));
    const afterChange = createOperatorGuard(config('admin-key-two-0123456789'), createMemoryRateLimiter(), access);
    const ended = await refusal(afterChange.credential()(request({ headers: cookie })));
    assert.equal(ended.status, 401);
    assert.equal(ended.detail, 'Your console session has ended; sign in again.');
    assert.equal(await sessions.find('operator', id), null, 'and it is gone');
  });

  it('lets an analyst cookie through the report routes only, and ends it when ANALYST_KEY changes', async () => {
    const analystConfig = (analystKey: string) =>
      loadConfig({
        ADMIN_KEY: 'admin-key-one-0123456789',
        ANALYST_KEY: analystKey,
        PUBLIC_BASE_URL: BASE,
        SIGNING_KEY: 'none',
      });
    const guard = createOperatorGuard(analystConfig('analyst-key-one-0123456789'), createMemoryRateLimiter(), access);
    const { id } = await guard.openSession(request(), 'analyst-key-one-0123456789', 'analyst');
    const cookie = { cookie: `__Host-cl_analyst_session=${id}` };
    await guard.reportReader()(request({ headers: cookie }));
    assert.equal((await refusal(guard.credential()(request({ headers: cookie })))).status, 401);
    assert.equal((await refusal(guard.keyEndpoints()(request({ headers: cookie })))).status, 401);
    // The analyst id under the operator cookie's name names no operator session.
    const renamed = { cookie: `__Host-cl_operator_session=${id}` };
    assert.equal((await refusal(guard.credential()(request({ headers: renamed })))).status, 401);
    const afterChange = createOperatorGuard(
      analystConfig('analyst-key-two-0123456789'),
      createMemoryRateLimiter(),
      access,
    );
    const ended = await refusal(afterChange.reportReader()(request({ headers: cookie })));
    assert.equal(ended.status, 401);
    assert.equal(ended.detail, 'Your console session has ended; sign in again.');
    assert.equal(await sessions.find('analyst', id), null, 'and it is gone');
  });

  it('never lets a tenant cookie through the operator guard, nor an operator cookie through the tenant guard', async () => {
    const cfg = config('admin-key-one-0123456789');
    const tenant = createTenantGuard(cfg, resolver, createMemoryRateLimiter(), () => {}, access);
    const operator = createOperatorGuard(cfg, createMemoryRateLimiter(), access);
    const t = await tenant.openSession(request(), 'svc_live_good');
    const o = await operator.openSession(request(), 'admin-key-one-0123456789');
    assert.equal(
      (await refusal(operator.credential()(request({ headers: { cookie: `__Host-cl_tenant_session=${t.id}` } }))))
        .status,
      401,
    );
    // The operator id under the tenant cookie name names no tenant session.
    assert.equal(
      (await refusal(tenant.authenticate(request({ headers: { cookie: `__Host-cl_tenant_session=${o.id}` } })))).status,
      401,
    );
    assert.deepEqual(
      await tenant.authenticate(request({ headers: { cookie: `__Host-cl_tenant_session=${t.id}` } })),
      principal,
    );
  });

  it('ends a tenant session once its key is revoked, and a Bearer header wins over the cookie', async () => {
    revoked = false;
    const tenant = createTenantGuard(
      config('admin-key-one-0123456789'),
      resolver,
      createMemoryRateLimiter(),
      () => {},
      access,
    );
    const { id } = await tenant.openSession(request(), 'svc_live_good');
    const cookie = `__Host-cl_tenant_session=${id}`;
    const bearer = await refusal(
      tenant.authenticate(request({ headers: { cookie, authorization: 'Bearer svc_live_bad' } })),
    );
    assert.equal(bearer.detail, 'Invalid or revoked API key.');
    revoked = true;
    const ended = await refusal(tenant.authenticate(request({ headers: { cookie } })));
    assert.equal(ended.detail, 'Your console session has ended; sign in again.');
    assert.match(ended.headers['Set-Cookie'] ?? '', /Max-Age=0/);
    revoked = false;
    assert.equal(await sessions.find('tenant', id), null, 'ended for good, not only while revoked');
  });
});
