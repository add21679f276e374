import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '../../../src/domain/clock.js';
import {
  ADMIN_KEY,
  assertProblem,
  type CallResult,
  startTestServer,
  type TestServer,
} from '../../support/test-server.js';

/**
 * Console sign-in against a real nats-server and Postgres: the session cookie stands for the key on
 * tenant routes and for the admin key on operator routes, with CSRF and Origin checks on unsafe methods, expiry by
 * an injected clock, sign-out, revocation, and the failed sign-in limits.
 */

const PUBLIC_BASE_URL = 'http://console.test:8080';
const CSRF_DETAIL = 'Missing or wrong X-CSRF-Token header: the console sends the token it got at sign-in.';
const ENDED_DETAIL = 'Your console session has ended; sign in again.';

/** Real time plus an offset the test moves forward (expiry without waiting). */
const offsetClock = (): Clock & { advance(ms: number): void } => {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms) => void (offset += ms) };
};

interface Session {
  cookie: string;
  csrfToken: string;
  setCookie: string;
  body: any;
}

describe('console sessions', () => {
  let s: TestServer;
  const clock = offsetClock();
  let nextAddress = 10;
  /** Each caller its own loopback address, so the per-address limits of one part do not reach another. */
  const freshAddress = () => `127.0.0.${nextAddress++}`;

  async function tenantKey(tenantId: string, scopes: string[]): Promise<{ key: string; keyHash: string }> {
    const r = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      from: freshAddress(),
      body: { tenantId, scopes, name: tenantId },
    });
    assert.equal(r.status, 201, r.text);
    return { key: r.body.key, keyHash: r.body.keyHash };
  }

  async function signIn(body: unknown, from = freshAddress()): Promise<Session> {
    const r = await s.call('POST', '/console/session', { body, from });
    assert.equal(r.status, 200, r.text);
    const setCookie = r.headers.get('set-cookie') ?? '';
    const cookie = setCookie.split(';')[0]!;
    return { cookie, csrfToken: r.body.csrfToken, setCookie, body: r.body };
  }

  const withCookie = (
    session: Session,
    method: string,
    path: string,
    o: { body?: unknown; csrf?: boolean; headers?: Record<string, string>; from?: string } = {},
  ): Promise<CallResult> =>
    s.call(method, path, {
      body: o.body,
      from: o.from ?? freshAddress(),
      headers: {
        cookie: session.cookie,
        ...(o.csrf ? { 'x-csrf-token': session.csrfToken } : {}),
        ...(o.headers ?? {}),
      },
    });

  before(async () => {
    s = await startTestServer(
      {
        PUBLIC_BASE_URL,
        ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
        RATE_LIMIT_IP_PER_MIN: '20',
        CONSOLE_SESSION_IDLE_MINUTES: '30',
        CONSOLE_SESSION_MAX_HOURS: '1',
      },
      { clock },
    );
  });
  after(async () => {
    await s?.stop();
  });

  it('signs a tenant in with a cookie that holds no key, and the cookie lists captures', async () => {
    const { key } = await tenantKey('console-a', ['capture']);
    const session = await signIn({ apiKey: key });
    assert.equal(session.body.kind, 'tenant');
    assert.equal(session.body.tenantId, 'console-a');
    assert.deepEqual(session.body.scopes, ['capture']);
    assert.ok(session.csrfToken.length >= 32);
    assert.ok(Date.parse(session.body.expiresAt) > Date.now());
    const attributes = session.setCookie.split(';').map((a) => a.trim());
    assert.match(attributes[0]!, /^cl_tenant_session=[A-Za-z0-9_-]{43}$/);
    for (const flag of ['HttpOnly', 'SameSite=Strict', 'Path=/']) assert.ok(attributes.includes(flag), flag);
    assert.ok(!attributes.includes('Secure'), 'not Secure while PUBLIC_BASE_URL is http');
    assert.ok(!session.setCookie.includes(key) && !session.setCookie.includes(key.slice(9)), 'the key is not in it');

    const list = await withCookie(session, 'GET', '/v1/captures');
    assert.equal(list.status, 200, list.text);
    assert.ok(Array.isArray(list.body.data));

    const current = await withCookie(session, 'GET', '/console/session');
    assert.equal(current.status, 200, current.text);
    assert.equal(current.body.tenant.tenantId, 'console-a');
    assert.equal(current.body.tenant.csrfToken, session.csrfToken);
    assert.equal(current.body.operator, null);
  });

  it('needs X-CSRF-Token and the right Origin for unsafe methods with the cookie; a Bearer header wins', async () => {
    const { key } = await tenantKey('console-b', ['capture']);
    const session = await signIn({ apiKey: key });
    const body = { url: 'http://127.0.0.1:9/console' };

    const missing = await withCookie(session, 'POST', '/v1/captures', { body });
    assert.equal(missing.status, 403, missing.text);
    assertProblem(missing.body, 403);
    assert.equal(missing.body.detail, CSRF_DETAIL);
    const wrong = await withCookie(session, 'POST', '/v1/captures', { body, headers: { 'x-csrf-token': 'nope' } });
    assert.equal(wrong.status, 403, wrong.text);
    assert.equal(wrong.body.detail, CSRF_DETAIL);

    const foreign = await withCookie(session, 'POST', '/v1/captures', {
      body,
      csrf: true,
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(foreign.status, 403, foreign.text);
    assertProblem(foreign.body, 403);

    const ok = await withCookie(session, 'POST', '/v1/captures', {
      body,
      csrf: true,
      headers: { origin: PUBLIC_BASE_URL },
    });
    assert.equal(ok.status, 202, ok.text);

    // A Bearer header always wins: a bad key with a good cookie is a bad key.
    const bearer = await s.call('GET', '/v1/captures', {
      token: 'svc_live_not-a-key',
      from: freshAddress(),
      headers: { cookie: session.cookie },
    });
    assert.equal(bearer.status, 401, bearer.text);
    assert.equal(bearer.body.detail, 'Invalid or revoked API key.');
  });

  it('keeps the tenant cookie off operator routes, and the operator cookie works there (with CSRF for POST)', async () => {
    const { key } = await tenantKey('console-c', ['capture', 'read']);
    const tenant = await signIn({ apiKey: key });
    const denied = await withCookie(tenant, 'GET', '/v1/admin/keys');
    assert.equal(denied.status, 401, denied.text);
    assertProblem(denied.body, 401);

    const operator = await signIn({ adminKey: ADMIN_KEY });
    assert.equal(operator.body.kind, 'operator');
    assert.match(operator.setCookie, /^cl_operator_session=[A-Za-z0-9_-]{43}; /);
    assert.ok(!operator.setCookie.includes(ADMIN_KEY));
    const list = await withCookie(operator, 'GET', '/v1/admin/keys');
    assert.equal(list.status, 200, list.text);
    assert.ok(list.body.data.some((k: { tenantId: string }) => k.tenantId === 'console-c'));

    const body = { tenantId: 'console-c', scopes: ['read'], name: 'made in the console' };
    const noCsrf = await withCookie(operator, 'POST', '/v1/admin/keys', { body });
    assert.equal(noCsrf.status, 403, noCsrf.text);
    assert.equal(noCsrf.body.detail, CSRF_DETAIL);
    const created = await withCookie(operator, 'POST', '/v1/admin/keys', { body, csrf: true });
    assert.equal(created.status, 201, created.text);

    // The operator cookie grants nothing on tenant routes.
    const tenantRoute = await withCookie(operator, 'GET', '/v1/captures');
    assert.equal(tenantRoute.status, 401, tenantRoute.text);

    const both = await s.call('GET', '/console/session', {
      from: freshAddress(),
      headers: { cookie: `${tenant.cookie}; ${operator.cookie}` },
    });
    assert.equal(both.status, 200, both.text);
    assert.equal(both.body.tenant.tenantId, 'console-c');
    assert.equal(both.body.operator.csrfToken, operator.csrfToken);
  });

  it('signs out: the session ends on the server and the same cookie then gets 401', async () => {
    const { key } = await tenantKey('console-d', ['read']);
    const session = await signIn({ apiKey: key });
    const noCsrf = await withCookie(session, 'DELETE', '/console/session?kind=tenant');
    assert.equal(noCsrf.status, 403, noCsrf.text);
    assert.equal(noCsrf.body.detail, CSRF_DETAIL);
    const out = await withCookie(session, 'DELETE', '/console/session?kind=tenant', { csrf: true });
    assert.equal(out.status, 204, out.text);
    assert.match(out.headers.get('set-cookie') ?? '', /^cl_tenant_session=; .*Max-Age=0/);

    const after = await withCookie(session, 'GET', '/v1/captures');
    assert.equal(after.status, 401, after.text);
    assertProblem(after.body, 401);
    assert.equal(after.body.detail, ENDED_DETAIL);
    const current = await withCookie(session, 'GET', '/console/session');
    assert.equal(current.status, 200);
    assert.equal(current.body.tenant, null);
    assert.match(current.headers.get('set-cookie') ?? '', /^cl_tenant_session=; /);

    const operator = await signIn({ adminKey: ADMIN_KEY });
    assert.equal((await withCookie(operator, 'DELETE', '/console/session?kind=operator', { csrf: true })).status, 204);
    assert.equal((await withCookie(operator, 'GET', '/v1/admin/keys')).status, 401);
  });

  it('refuses a request carrying a second tenant session cookie, planted by another page on the host, instead of serving its tenant', async () => {
    const victim = await signIn({ apiKey: (await tenantKey('console-victim', ['capture'])).key });
    const attacker = await signIn({ apiKey: (await tenantKey('console-attacker', ['capture'])).key });
    // What a replayed page on the console's host name can do: set the attacker's session for a longer path, which
    // the browser sends first, beside the victim's own (cookies ignore ports).
    const planted = { ...victim, cookie: `${attacker.cookie}; ${victim.cookie}` };
    for (const [method, path, csrf] of [
      ['GET', '/v1/captures', false],
      ['GET', '/console/session', false],
      ['POST', '/v1/captures', true],
    ] as const) {
      const r = await withCookie(planted, method, path, {
        csrf,
        body: method === 'POST' ? { url: 'http://127.0.0.1:9/' } : undefined,
      });
      assert.equal(r.status, 401, `${method} ${path}: ${r.text}`);
      assertProblem(r.body, 401);
      assert.equal(r.body.sessionCookie, 'duplicated');
      assert.match(r.body.detail, /more than one cl_tenant_session cookie/);
      assert.equal(r.headers.get('set-cookie'), null, 'neither cookie cleared');
    }
    for (const session of [victim, attacker]) {
      const list = await withCookie(session, 'GET', '/v1/captures');
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.body.data, [], 'no capture reached either tenant');
    }
  });

  it("serves the console on PUBLIC_BASE_URL's host name only, and redirects any other Host there", async () => {
    const port = new URL(s.baseUrl).port;
    for (const path of ['/console', '/console/captures?status=complete', '/console/assets/console.js']) {
      const elsewhere = await s.call('GET', path, { headers: { host: `127.0.0.1:${port}` } });
      assert.equal(elsewhere.status, 307, `${path}: ${elsewhere.text}`);
      assert.equal(elsewhere.headers.get('location'), `${PUBLIC_BASE_URL}${path}`);
    }
    const replayHost = await s.call('GET', '/console', { headers: { host: `localhost:${port}` } });
    assert.equal(replayHost.status, 307);
    const here = await s.call('GET', '/console/captures', { headers: { host: new URL(PUBLIC_BASE_URL).host } });
    assert.equal(here.status, 200, here.text);
    assert.match(here.headers.get('content-type') ?? '', /text\/html/);
    // The API itself answers by any name (clients and health checks address it as they like).
    assert.equal((await s.call('GET', '/health', { headers: { host: `localhost:${port}` } })).status, 200);
  });

  it("ends a revoked key's sessions", async () => {
    const { key, keyHash } = await tenantKey('console-e', ['read']);
    const session = await signIn({ apiKey: key });
    assert.equal((await withCookie(session, 'GET', '/v1/captures')).status, 200);
    const revoked = await s.call('DELETE', `/v1/admin/keys/${keyHash}`, { token: ADMIN_KEY, from: freshAddress() });
    assert.equal(revoked.status, 200, revoked.text);
    // The revocation notice evicts the key from the resolver (as in every API process); wait for it to arrive.
    const deadline = Date.now() + 30_000;
    let r = await withCookie(session, 'GET', '/v1/captures');
    while (r.status === 200 && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 100));
      r = await withCookie(session, 'GET', '/v1/captures');
    }
    assert.equal(r.status, 401, r.text);
    assert.equal(r.body.detail, ENDED_DETAIL);
    // And it stays ended (the session itself was deleted).
    assert.equal((await withCookie(session, 'GET', '/console/session')).body.tenant, null);
    const again = await s.call('POST', '/console/session', { body: { apiKey: key }, from: freshAddress() });
    assert.equal(again.status, 401, again.text);
    assert.equal(again.body.detail, 'Invalid or revoked API key.');
  });

  it('ends a session after the idle timeout, and at its absolute lifetime however busy', async () => {
    const { key } = await tenantKey('console-f', ['read']);
    const idle = await signIn({ apiKey: key });
    clock.advance(31 * 60_000);
    const late = await withCookie(idle, 'GET', '/v1/captures');
    assert.equal(late.status, 401, late.text);
    assert.equal(late.body.detail, ENDED_DETAIL);

    const busy = await signIn({ apiKey: key });
    const operator = await signIn({ adminKey: ADMIN_KEY });
    for (let step = 0; step < 2; step++) {
      clock.advance(25 * 60_000); // under the idle timeout each time
      assert.equal((await withCookie(busy, 'GET', '/v1/captures')).status, 200, `step ${step}`);
      assert.equal((await withCookie(operator, 'GET', '/v1/admin/keys')).status, 200, `step ${step}`);
    }
    clock.advance(11 * 60_000); // 61 minutes since sign-in: past CONSOLE_SESSION_MAX_HOURS=1
    const expired = await withCookie(busy, 'GET', '/v1/captures');
    assert.equal(expired.status, 401, expired.text);
    assert.equal(expired.body.detail, ENDED_DETAIL);
    assert.equal((await withCookie(operator, 'GET', '/v1/admin/keys')).status, 401);
  });

  it("refuses bad bodies with the spec's error body", async () => {
    const cases: Array<[unknown, string | undefined, number, RegExp]> = [
      [{}, undefined, 400, /apiKey/],
      [{ apiKey: 'a', adminKey: 'b' }, undefined, 400, /adminKey/],
      [{ apiKey: 42 }, undefined, 400, /apiKey/],
      [{ apiKey: '' }, undefined, 400, /apiKey/],
      ['[', undefined, 400, /JSON/],
      [{ apiKey: 'svc_live_x' }, 'text/plain', 415, /application\/json/],
    ];
    for (const [body, type, status, detail] of cases) {
      const r = await s.call('POST', '/console/session', {
        body,
        from: freshAddress(),
        ...(type ? { headers: { 'content-type': type } } : {}),
      });
      assert.equal(r.status, status, `${JSON.stringify(body)}: ${r.text}`);
      assertProblem(r.body, status);
      assert.match(r.body.detail, detail);
    }
    const noKind = await s.call('DELETE', '/console/session', { from: freshAddress() });
    assert.equal(noKind.status, 400, noKind.text);
    assertProblem(noKind.body, 400);
    assert.match(noKind.body.detail, /kind/);
  });

  it("refuses a key with only the 'admin' scope (403)", async () => {
    const { key } = await tenantKey('console-g', ['admin']);
    const r = await s.call('POST', '/console/session', { body: { apiKey: key }, from: freshAddress() });
    assert.equal(r.status, 403, r.text);
    assertProblem(r.body, 403);
    assert.match(r.body.detail, /'admin' scope/);
  });

  it('charges failed sign-ins to the address like failed Bearer keys and failed admin credentials (429)', async () => {
    const tenantFrom = freshAddress();
    let r: CallResult | undefined;
    for (let i = 0; i < 40; i++) {
      r = await s.call('POST', '/console/session', { body: { apiKey: `svc_live_guess${i}` }, from: tenantFrom });
      if (r.status === 429) break;
      assert.equal(r.status, 401, r.text);
      assert.equal(r.body.detail, 'Invalid or revoked API key.');
    }
    assert.equal(r?.status, 429, r?.text);
    assertProblem(r!.body, 429);
    // The same count as failed Bearer keys: that address is now refused there too.
    const bearer = await s.call('GET', '/v1/captures', { token: 'svc_live_guess', from: tenantFrom });
    assert.equal(bearer.status, 429, bearer.text);

    const adminFrom = freshAddress();
    for (let i = 0; i < 5; i++) {
      const bad = await s.call('POST', '/console/session', { body: { adminKey: `wrong-${i}` }, from: adminFrom });
      assert.equal(bad.status, 401, bad.text);
    }
    const limited = await s.call('POST', '/console/session', { body: { adminKey: ADMIN_KEY }, from: adminFrom });
    assert.equal(limited.status, 429, limited.text);
    assertProblem(limited.body, 429);
    // The same count as failed admin credentials on the operator routes.
    const usage = await s.call('GET', '/v1/admin/usage?tenant=console-a', { token: ADMIN_KEY, from: adminFrom });
    assert.equal(usage.status, 429, usage.text);
  });

  it('documents the routes under the console tag', async () => {
    const doc = (await s.call('GET', '/openapi.json')).body;
    for (const method of ['post', 'get', 'delete'])
      assert.deepEqual(doc.paths['/console/session'][method].tags, ['console'], method);
    assert.ok(doc.tags.some((t: { name: string }) => t.name === 'console'));
  });
});

describe('console sessions in legacy single-key mode (no ADMIN_KEY), under https', () => {
  let s: TestServer;
  const LEGACY_KEY = 'legacy-console-key-0123456789';
  before(async () => {
    s = await startTestServer({ ADMIN_KEY: '', CAPTURE_API_KEY: LEGACY_KEY, PUBLIC_BASE_URL: 'https://console.test' });
  });
  after(async () => {
    await s?.stop();
  });

  it('answers operator sign-in 503', async () => {
    const r = await s.call('POST', '/console/session', { body: { adminKey: 'anything-at-all-here' } });
    assert.equal(r.status, 503, r.text);
    assertProblem(r.body, 503);
    assert.match(r.body.detail, /ADMIN_KEY/);
  });

  it('signs the legacy key in with a Secure cookie that lists captures', async () => {
    const r = await s.call('POST', '/console/session', { body: { apiKey: LEGACY_KEY } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.tenantId, 'default');
    const setCookie = r.headers.get('set-cookie') ?? '';
    assert.ok(
      setCookie.split(';').some((a) => a.trim() === 'Secure'),
      setCookie,
    );
    assert.ok(!setCookie.includes(LEGACY_KEY));
    assert.match(setCookie, /^__Host-cl_tenant_session=[A-Za-z0-9_-]{43}; Path=\/; /, 'the __Host- name under https');
    const list = await s.call('GET', '/v1/captures', { headers: { cookie: setCookie.split(';')[0]! } });
    assert.equal(list.status, 200, list.text);
    // The bare name is not read under https: such a cookie can be planted by a sibling host; this one cannot.
    const bare = setCookie.split(';')[0]!.replace(/^__Host-/, '');
    assert.equal((await s.call('GET', '/v1/captures', { headers: { cookie: bare } })).status, 401);
  });
});
