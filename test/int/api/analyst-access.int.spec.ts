import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Infra } from '../../support/harness.js';
import { startInfra } from '../../support/harness.js';
import {
  ADMIN_KEY,
  assertProblem,
  type CallResult,
  startTestServer,
  type TestServer,
} from '../../support/test-server.js';

/**
 * Analysts' least privilege (ANALYST_KEY; docs/security.md, Analyst access) against a real nats-server and Postgres:
 * the analysts' key — by Bearer or through an analyst console session — reads the reports (JSON and CSV) and nothing
 * else under /v1/admin; changing ANALYST_KEY ends its sessions; without ANALYST_KEY nothing changes.
 */

const ANALYST_KEY = 'test-analyst-key-0123456789';
const PUBLIC_BASE_URL = 'http://console.test:8080';
const ENDED_DETAIL = 'Your console session has ended; sign in again.';
/** Operator routes an analyst must not reach, one of each guard (key endpoints, tenancy, operator views). */
const OTHER_ADMIN_ROUTES = ['/v1/admin/keys', '/v1/admin/tenants', '/v1/admin/usage?tenant=t1', '/v1/admin/capacity'];

describe('analyst access', () => {
  let infra: Infra;
  let databaseUrl: string;
  let s: TestServer;
  let nextAddress = 10;
  /** Each caller its own loopback address, so the failed-credential counts of one part do not reach another. */
  const freshAddress = () => `127.0.1.${nextAddress++}`;
  const start = (env: Record<string, string>) => startTestServer({ PUBLIC_BASE_URL, ...env }, { infra, databaseUrl });

  async function analystSession(from = freshAddress()): Promise<{ cookie: string; body: any; setCookie: string }> {
    const r = await s.call('POST', '/console/session', { body: { analystKey: ANALYST_KEY }, from });
    assert.equal(r.status, 200, r.text);
    const setCookie = r.headers.get('set-cookie') ?? '';
    return { cookie: setCookie.split(';')[0]!, body: r.body, setCookie };
  }
  const withCookie = (cookie: string, method: string, path: string): Promise<CallResult> =>
    s.call(method, path, { from: freshAddress(), headers: { cookie } });

  function assertReports(json: CallResult, csv: CallResult): void {
    assert.equal(json.status, 200, json.text);
    assert.equal(json.body.name, 'captures-per-day');
    assert.ok(Array.isArray(json.body.columns) && Array.isArray(json.body.rows));
    assert.equal(csv.status, 200, csv.text);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(csv.text.split('\n')[0]!, /^day,/);
  }

  before(async () => {
    infra = await startInfra();
    databaseUrl = await infra.freshDatabase();
    s = await start({ ANALYST_KEY });
  });
  after(async () => {
    await s?.stop();
    await infra?.stop();
  });

  it('takes Bearer ANALYST_KEY on the reports, JSON and CSV, and the admin key still works there', async () => {
    const json = await s.call('GET', '/v1/admin/reports/captures-per-day', {
      token: ANALYST_KEY,
      from: freshAddress(),
    });
    const csv = await s.call('GET', '/v1/admin/reports/captures-per-day?format=csv', {
      token: ANALYST_KEY,
      from: freshAddress(),
    });
    assertReports(json, csv);
    const admin = await s.call('GET', '/v1/admin/reports/failures-by-reason', {
      token: ADMIN_KEY,
      from: freshAddress(),
    });
    assert.equal(admin.status, 200, admin.text);
    const wrong = await s.call('GET', '/v1/admin/reports/captures-per-day', {
      token: 'not-the-analyst-key-0123',
      from: freshAddress(),
    });
    assert.equal(wrong.status, 401, wrong.text);
    assertProblem(wrong.body, 401);
  });

  it('answers Bearer ANALYST_KEY 401 on every other /v1/admin route, counted as a failed admin credential', async () => {
    for (const path of OTHER_ADMIN_ROUTES) {
      const r = await s.call('GET', path, { token: ANALYST_KEY, from: freshAddress() });
      assert.equal(r.status, 401, `${path}: ${r.text}`);
      assertProblem(r.body, 401);
      assert.equal(r.body.detail, 'Invalid admin credential.', path);
    }
    const from = freshAddress();
    for (let i = 0; i < 5; i++)
      assert.equal((await s.call('GET', '/v1/admin/tenants', { token: ANALYST_KEY, from })).status, 401);
    const limited = await s.call('GET', '/v1/admin/reports/captures-per-day', { token: ANALYST_KEY, from });
    assert.equal(limited.status, 429, limited.text);
    assertProblem(limited.body, 429);
  });

  it('charges failed analyst credentials on the reports like failed admin ones (429 after 5, there and elsewhere)', async () => {
    const from = freshAddress();
    for (let i = 0; i < 5; i++) {
      const r = await s.call('GET', '/v1/admin/reports/captures-per-day', { token: `wrong-analyst-${i}-key`, from });
      assert.equal(r.status, 401, r.text);
    }
    const reports = await s.call('GET', '/v1/admin/reports/captures-per-day', { token: ANALYST_KEY, from });
    assert.equal(reports.status, 429, reports.text);
    const usage = await s.call('GET', '/v1/admin/usage?tenant=t1', { token: ADMIN_KEY, from });
    assert.equal(usage.status, 429, usage.text);
    const signIn = await s.call('POST', '/console/session', { body: { analystKey: ANALYST_KEY }, from });
    assert.equal(signIn.status, 429, signIn.text);
  });

  it('opens an analyst session that reads the reports and nothing else', async () => {
    const session = await analystSession();
    assert.equal(session.body.kind, 'analyst');
    assert.ok(session.body.csrfToken.length >= 32);
    assert.ok(Date.parse(session.body.expiresAt) > Date.now());
    const attributes = session.setCookie.split(';').map((a) => a.trim());
    assert.match(attributes[0]!, /^cl_analyst_session=[A-Za-z0-9_-]{43}$/);
    for (const flag of ['HttpOnly', 'SameSite=Strict', 'Path=/']) assert.ok(attributes.includes(flag), flag);
    assert.ok(!session.setCookie.includes(ANALYST_KEY));

    assertReports(
      await withCookie(session.cookie, 'GET', '/v1/admin/reports/captures-per-day'),
      await withCookie(session.cookie, 'GET', '/v1/admin/reports/captures-per-day?format=csv'),
    );
    for (const path of [...OTHER_ADMIN_ROUTES, '/v1/admin/checks', '/v1/captures']) {
      const r = await withCookie(session.cookie, 'GET', path);
      assert.equal(r.status, 401, `${path}: ${r.text}`);
      assertProblem(r.body, 401);
    }
    const current = await withCookie(session.cookie, 'GET', '/console/session');
    assert.equal(current.status, 200, current.text);
    assert.deepEqual(current.body.analyst, {
      csrfToken: session.body.csrfToken,
      expiresAt: current.body.analyst.expiresAt,
    });
    assert.equal(current.body.operator, null);
    assert.equal(current.body.tenant, null);
  });

  it('reads the reports with an analyst and an operator session side by side, and signs each out on its own', async () => {
    const analyst = await analystSession();
    const op = await s.call('POST', '/console/session', { body: { adminKey: ADMIN_KEY }, from: freshAddress() });
    assert.equal(op.status, 200, op.text);
    const operator = (op.headers.get('set-cookie') ?? '').split(';')[0]!;
    const both = `${operator}; ${analyst.cookie}`;
    assert.equal((await withCookie(both, 'GET', '/v1/admin/reports/storage-growth')).status, 200);
    assert.equal((await withCookie(both, 'GET', '/v1/admin/keys')).status, 200);

    const noCsrf = await withCookie(analyst.cookie, 'DELETE', '/console/session?kind=analyst');
    assert.equal(noCsrf.status, 403, noCsrf.text);
    const out = await s.call('DELETE', '/console/session?kind=analyst', {
      from: freshAddress(),
      headers: { cookie: both, 'x-csrf-token': analyst.body.csrfToken },
    });
    assert.equal(out.status, 204, out.text);
    assert.match(out.headers.get('set-cookie') ?? '', /^cl_analyst_session=; .*Max-Age=0/);
    const ended = await withCookie(analyst.cookie, 'GET', '/v1/admin/reports/storage-growth');
    assert.equal(ended.status, 401, ended.text);
    assert.equal(ended.body.detail, ENDED_DETAIL);
    // The operator's session holds: the browser's reports still load with both cookies.
    assert.equal((await withCookie(both, 'GET', '/v1/admin/reports/storage-growth')).status, 200);
    const sessions = await withCookie(both, 'GET', '/console/session');
    assert.equal(sessions.body.analyst, null);
    assert.ok(sessions.body.operator);
  });

  it('refuses bad sign-in bodies naming the field', async () => {
    for (const [body, field] of [
      [{ analystKey: '' }, /analystKey/],
      [{ analystKey: 42 }, /analystKey/],
      [{ adminKey: ADMIN_KEY, analystKey: ANALYST_KEY }, /analystKey/],
    ] as const) {
      const r = await s.call('POST', '/console/session', { body, from: freshAddress() });
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assertProblem(r.body, 400);
      assert.match(r.body.detail, field);
    }
    const wrong = await s.call('POST', '/console/session', {
      body: { analystKey: 'not-the-analyst-key-0123' },
      from: freshAddress(),
    });
    assert.equal(wrong.status, 401, wrong.text);
    assert.equal(wrong.body.detail, 'Invalid analyst credential.');
    const kind = await s.call('DELETE', '/console/session?kind=visitor', { from: freshAddress() });
    assert.equal(kind.status, 400, kind.text);
    assert.match(kind.body.detail, /analyst/);
  });

  it('documents the analyst credential on the reports operation and the console routes', async () => {
    const doc = (await s.call('GET', '/openapi.json')).body;
    const security = doc.paths['/v1/admin/reports/{name}'].get.security.map((r: object) => Object.keys(r)[0]);
    assert.deepEqual(security, ['bearer', 'analystBearer', 'consoleOperatorSession', 'consoleAnalystSession']);
    assert.equal(doc.components.securitySchemes.consoleAnalystSession.name, 'cl_analyst_session');
    assert.equal(doc.paths['/v1/admin/keys'].get.security.length, 1, 'other admin routes: the admin credential only');
    const body = JSON.stringify(doc.paths['/console/session'].post.requestBody);
    assert.match(body, /analystKey/);
    const answer = JSON.stringify(doc.paths['/console/session'].get.responses['200']);
    assert.match(answer, /"analyst"/);
  });

  it('ends analyst sessions when ANALYST_KEY changes; unset, analyst sign-in is 503 and the key is a wrong one', async () => {
    const session = await analystSession();
    assert.equal((await withCookie(session.cookie, 'GET', '/v1/admin/reports/captures-per-day')).status, 200);
    await s.stop();
    // Same NATS (the session bucket) and database: only ANALYST_KEY changed.
    s = await start({ ANALYST_KEY: 'another-analyst-key-9876543210' });
    const ended = await withCookie(session.cookie, 'GET', '/v1/admin/reports/captures-per-day');
    assert.equal(ended.status, 401, ended.text);
    assert.equal(ended.body.detail, ENDED_DETAIL);
    assert.match(ended.headers.get('set-cookie') ?? '', /^cl_analyst_session=; /);
    const old = await s.call('GET', '/v1/admin/reports/captures-per-day', { token: ANALYST_KEY, from: freshAddress() });
    assert.equal(old.status, 401, old.text);

    const oldSignIn = await s.call('POST', '/console/session', {
      body: { analystKey: ANALYST_KEY },
      from: freshAddress(),
    });
    assert.equal(oldSignIn.status, 401, oldSignIn.text);
    const fresh = await s.call('POST', '/console/session', {
      body: { analystKey: 'another-analyst-key-9876543210' },
      from: freshAddress(),
    });
    assert.equal(fresh.status, 200, fresh.text);
    const cookie = (fresh.headers.get('set-cookie') ?? '').split(';')[0]!;
    await s.stop();
    s = await start({});
    const unsetSignIn = await s.call('POST', '/console/session', {
      body: { analystKey: 'another-analyst-key-9876543210' },
      from: freshAddress(),
    });
    assert.equal(unsetSignIn.status, 503, unsetSignIn.text);
    assertProblem(unsetSignIn.body, 503);
    assert.match(unsetSignIn.body.detail, /ANALYST_KEY/);
    const bearer = await s.call('GET', '/v1/admin/reports/captures-per-day', {
      token: 'another-analyst-key-9876543210',
      from: freshAddress(),
    });
    assert.equal(bearer.status, 401, bearer.text);
    assert.equal(bearer.body.detail, 'Invalid admin credential.', 'as before analysts existed');
    assert.equal((await withCookie(cookie, 'GET', '/v1/admin/reports/captures-per-day')).status, 401);
    const sessions = await withCookie(cookie, 'GET', '/console/session');
    assert.equal(sessions.body.analyst, null);
    assert.match(sessions.headers.get('set-cookie') ?? '', /^cl_analyst_session=; /);
  });
});
