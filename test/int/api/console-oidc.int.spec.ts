import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Infra, startInfra } from '../../support/harness.js';
import { type OidcProviderHandle, startOidcProvider } from '../../support/oidc-provider.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * Console sign-in with OpenID Connect against a real OpenID provider (oidc-provider, certified) on
 * loopback, a real nats-server and Postgres: the whole flow over HTTP without a browser — start → the provider's
 * authorization endpoint → its login and consent forms (devInteractions) → callback → a tenant session cookie that
 * lists the mapped tenant's captures with the mapped scopes; an unmapped person, a forged or missing state, and a
 * mapping removed while signed in (the service restarted with another configuration) are refused.
 */

const PUBLIC_BASE_URL = 'http://console.test:8080';
const CLIENT_ID = 'capture-ledger-console';
const CLIENT_SECRET = 'a-client-secret-for-the-test';
const CALLBACK = `${PUBLIC_BASE_URL}/console/oidc/test-idp/callback`;

/** The people the provider knows, by login name: the groups claim the test maps. */
const ACCOUNTS = {
  'legal-person': { groups: ['everyone', 'legal'] },
  'staff-person': { groups: ['everyone', 'staff'] },
  stranger: { groups: ['everyone'] },
};

/** A cookie jar good enough for two hosts and one flow: name → value, per origin, paths ignored. */
class Jar {
  private readonly byOrigin = new Map<string, Map<string, string>>();
  take(url: string, res: Response) {
    const origin = new URL(url).origin;
    const jar = this.byOrigin.get(origin) ?? new Map<string, string>();
    this.byOrigin.set(origin, jar);
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) jar.delete(name);
      else jar.set(name, value);
    }
  }
  header(url: string): string {
    return [...(this.byOrigin.get(new URL(url).origin) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  get(url: string, name: string) {
    return this.byOrigin.get(new URL(url).origin)?.get(name);
  }
}

describe('console sign-in with OpenID Connect', () => {
  let infra: Infra;
  let databaseUrl: string;
  let s: TestServer;
  let idp: OidcProviderHandle;
  let issuer: string;

  const providersConfig = (mappings: { value: string; tenantId: string; scopes: string[] }[]) =>
    JSON.stringify([
      {
        id: 'test-idp',
        label: 'Test IdP',
        issuer,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        scope: 'openid groups',
        claim: 'groups',
        mappings,
      },
    ]);
  const FULL_MAPPINGS = [
    { value: 'legal', tenantId: 'oidc-legal', scopes: ['capture'] },
    { value: 'staff', tenantId: 'oidc-staff', scopes: ['read'] },
  ];

  const startService = (mappings = FULL_MAPPINGS) =>
    startTestServer(
      {
        PUBLIC_BASE_URL,
        ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
        CONSOLE_OIDC_PROVIDERS: providersConfig(mappings),
      },
      { infra, databaseUrl },
    );

  /** The service's URL for a PUBLIC_BASE_URL one (the test reaches it on loopback). */
  const local = (url: string) => url.replace(PUBLIC_BASE_URL, s.baseUrl);

  /** One GET or form POST with the jar's cookies, redirects not followed. */
  async function request(jar: Jar, url: string, form?: Record<string, string>): Promise<Response> {
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: jar.header(url),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    jar.take(url, res);
    return res;
  }

  /**
   * Drive the provider as a browser would, from the service's start redirect until the provider sends the browser
   * back to the callback: log in as `login` and consent. Returns the callback URL (under PUBLIC_BASE_URL).
   */
  async function throughProvider(jar: Jar, authorizationUrl: string, login: string): Promise<string> {
    let url = authorizationUrl;
    for (let step = 0; step < 12; step++) {
      if (url.startsWith(PUBLIC_BASE_URL)) return url;
      const res = await request(jar, url);
      if (res.status >= 300 && res.status < 400) {
        url = new URL(res.headers.get('location')!, url).href;
        continue;
      }
      const html = await res.text();
      assert.equal(res.status, 200, `${url}: ${html.slice(0, 300)}`);
      const action = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(html)?.[1];
      assert.ok(action, `no form at ${url}: ${html.slice(0, 300)}`);
      const form: Record<string, string> = html.includes('name="login"')
        ? { prompt: 'login', login, password: 'any' }
        : { prompt: 'consent' };
      const posted = await request(jar, new URL(action, url).href, form);
      assert.ok(posted.status >= 300 && posted.status < 400, `form post ${posted.status}: ${await posted.text()}`);
      url = new URL(posted.headers.get('location')!, url).href;
    }
    assert.fail(`the provider did not send the browser back (last at ${url})`);
  }

  async function start(jar: Jar): Promise<string> {
    const res = await request(jar, `${s.baseUrl}/console/oidc/test-idp/start`);
    assert.equal(res.status, 302, await res.text());
    const location = res.headers.get('location')!;
    assert.ok(location.startsWith(`${issuer}/`), location);
    const auth = new URL(location);
    assert.equal(auth.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(auth.searchParams.get('redirect_uri'), CALLBACK);
    for (const p of ['state', 'nonce', 'code_challenge']) assert.ok(auth.searchParams.get(p), p);
    const flowCookie = res.headers.getSetCookie().find((c) => c.startsWith('cl_oidc_flow='))!;
    const attrs = flowCookie.split(';').map((a) => a.trim());
    for (const flag of ['HttpOnly', 'SameSite=Lax', 'Path=/console/oidc', 'Max-Age=600'])
      assert.ok(attrs.includes(flag), `${flag} in ${flowCookie}`);
    for (const secret of [auth.searchParams.get('state')!, auth.searchParams.get('nonce')!])
      assert.ok(!flowCookie.includes(secret), 'the flow cookie is sealed');
    return location;
  }

  /** The whole flow for `login`; the callback's answer and the jar. */
  async function signIn(login: string) {
    const jar = new Jar();
    const callback = await throughProvider(jar, await start(jar), login);
    const res = await request(jar, local(callback));
    return { res, jar, sessionCookie: jar.get(s.baseUrl, 'cl_tenant_session') };
  }

  async function withSession(cookie: string, method: string, path: string, body?: unknown, csrf?: string) {
    return s.call(method, path, {
      headers: { cookie: `cl_tenant_session=${cookie}`, ...(csrf ? { 'x-csrf-token': csrf } : {}) },
      ...(body !== undefined ? { body } : {}),
    });
  }

  before(async () => {
    idp = await startOidcProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: CALLBACK,
      accounts: ACCOUNTS,
      claims: { openid: ['sub'], groups: ['groups'] },
    });
    issuer = idp.issuer;
    infra = await startInfra();
    databaseUrl = await infra.freshDatabase();
    s = await startService();
  });

  after(async () => {
    await s?.stop();
    await infra?.stop();
    await idp?.close();
  });

  it('lists the providers without secrets', async () => {
    const r = await s.call('GET', '/console/oidc/providers');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { data: [{ id: 'test-idp', label: 'Test IdP' }] });
    assert.ok(!r.text.includes(CLIENT_SECRET) && !r.text.includes(issuer));
  });

  let legalSession = '';

  it('signs a mapped person in: the cookie lists their tenant captures and capture scope works', async () => {
    // A capture of the mapped tenant, submitted with a key, for the session to list.
    const key = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'oidc-legal', scopes: ['capture'], name: 'bearer' },
    });
    assert.equal(key.status, 201, key.text);
    const submitted = await s.call('POST', '/v1/captures', {
      token: key.body.key,
      body: { url: 'http://127.0.0.1:9/oidc-legal' },
    });
    assert.equal(submitted.status, 202, submitted.text);

    const { res, sessionCookie } = await signIn('legal-person');
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/console/captures');
    assert.ok(sessionCookie, 'a session cookie');
    const setCookies = res.headers.getSetCookie();
    assert.ok(
      setCookies.some((c) => /^cl_tenant_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/.test(c)),
    );
    assert.ok(
      setCookies.some((c) => c.startsWith('cl_oidc_flow=;') && c.includes('Max-Age=0')),
      'flow cookie cleared',
    );
    legalSession = sessionCookie!;

    const current = await withSession(legalSession, 'GET', '/console/session');
    assert.equal(current.status, 200, current.text);
    assert.equal(current.body.tenant.tenantId, 'oidc-legal');
    assert.deepEqual(current.body.tenant.scopes, ['capture']);

    // The projection catches up with the capture submitted above.
    let listed: string[] = [];
    for (let i = 0; i < 100 && !listed.includes(submitted.body.captureId); i++) {
      const list = await withSession(legalSession, 'GET', '/v1/captures');
      assert.equal(list.status, 200, list.text);
      listed = list.body.data.map((c: { captureId: string }) => c.captureId);
      if (!listed.includes(submitted.body.captureId)) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(listed.includes(submitted.body.captureId), 'the session lists its tenant captures');

    const csrf = current.body.tenant.csrfToken;
    const noToken = await withSession(legalSession, 'POST', '/v1/captures', { url: 'http://127.0.0.1:9/x' });
    assert.equal(noToken.status, 403, 'CSRF unchanged');
    const captured = await withSession(legalSession, 'POST', '/v1/captures', { url: 'http://127.0.0.1:9/x' }, csrf);
    assert.equal(captured.status, 202, captured.text);
  });

  it("enforces a read-only mapping's scopes", async () => {
    const { res, sessionCookie } = await signIn('staff-person');
    assert.equal(res.status, 303);
    assert.ok(sessionCookie);
    const current = await withSession(sessionCookie!, 'GET', '/console/session');
    assert.equal(current.body.tenant.tenantId, 'oidc-staff');
    const list = await withSession(sessionCookie!, 'GET', '/v1/captures');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.data, [], "another tenant's captures are not listed");
    const refused = await withSession(
      sessionCookie!,
      'POST',
      '/v1/captures',
      { url: 'http://127.0.0.1:9/ro' },
      current.body.tenant.csrfToken,
    );
    assert.equal(refused.status, 403, refused.text);
  });

  it('refuses a person whose claim maps to nothing: the sign-in error, no cookie', async () => {
    const { res, sessionCookie } = await signIn('stranger');
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/console/sign-in?error=oidc_no_mapping');
    assert.equal(sessionCookie, undefined);
    assert.ok(!res.headers.getSetCookie().some((c) => c.startsWith('cl_tenant_session=')));
  });

  it('refuses a forged or missing state, and a callback without the flow cookie', async () => {
    const jar = new Jar();
    const callback = await throughProvider(jar, await start(jar), 'legal-person');
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state');
    const r1 = await request(jar, local(forged.href));
    assert.equal(r1.status, 303);
    assert.equal(r1.headers.get('location'), '/console/sign-in?error=oidc_state');
    assert.equal(jar.get(s.baseUrl, 'cl_tenant_session'), undefined);

    const flowJar = new Jar();
    const again = await throughProvider(flowJar, await start(flowJar), 'legal-person');
    const stateless = new URL(again);
    stateless.searchParams.delete('state');
    const r2 = await request(flowJar, local(stateless.href));
    assert.equal(r2.headers.get('location'), '/console/sign-in?error=oidc_state');

    // The right state but no flow cookie (another browser, or a cookie forged without the key).
    const r3 = await fetch(local(again), { redirect: 'manual' });
    assert.equal(r3.headers.get('location'), '/console/sign-in?error=oidc_state');
    const r4 = await fetch(local(again), {
      redirect: 'manual',
      headers: { cookie: 'cl_oidc_flow=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    });
    assert.equal(r4.headers.get('location'), '/console/sign-in?error=oidc_state');
    assert.ok(!r4.headers.getSetCookie().some((c) => c.startsWith('cl_tenant_session=')));
  });

  it('answers an unknown provider with the sign-in error', async () => {
    const r = await s.call('GET', '/console/oidc/nope/start');
    assert.equal(r.status, 303);
    assert.equal(r.headers.get('location'), '/console/sign-in?error=oidc_unknown_provider');
    assert.equal(r.raw.length, 0, 'a redirect without a body, as documented');
  });

  it('ends the session when its mapping is removed (the service restarted with another configuration)', async () => {
    assert.ok(legalSession, 'signed in by an earlier test');
    const before = await withSession(legalSession, 'GET', '/v1/captures');
    assert.equal(before.status, 200);
    await s.stop();
    s = await startService([{ value: 'staff', tenantId: 'oidc-staff', scopes: ['read'] }]);
    const afterRestart = await withSession(legalSession, 'GET', '/v1/captures');
    assert.equal(afterRestart.status, 401, afterRestart.text);
    assert.equal(afterRestart.body.detail, 'Your console session has ended; sign in again.');
    const sessions = await withSession(legalSession, 'GET', '/console/session');
    assert.equal(sessions.body.tenant, null);
  });
});
