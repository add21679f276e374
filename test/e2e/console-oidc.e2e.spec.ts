import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { launchChromium, type LaunchedChromium } from '../../src/capture/browser-launch.js';
import { freePort } from '../../src/infra/free-port.js';
import { assertAccessible, type BrowserRecord, undocumentedRequests, watchPage } from '../support/console-browser.js';
import { type OidcProviderHandle, startOidcProvider } from '../support/oidc-provider.js';
import type { OpenApiDoc } from '../support/openapi-check.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Console sign-in with OpenID Connect as a person does it, in the real Chromium against the real
 * service and a real OpenID provider (oidc-provider) on another site (localhost, the service on 127.0.0.1), so the
 * browser's cross-site cookie rules apply as with a real provider. A mapped person opens the captures page, is sent
 * to sign in, clicks "Sign in with Test IdP", types their login and password at the provider, consents, and is back
 * on the captures page signed in as the mapped tenant; they submit a capture (a POST with the CSRF token) and sign
 * out. A person whose claim maps to nothing ends on the sign-in page, told why. On our pages axe-core finds no
 * serious or critical violation, the browser logs no error from our origin, and every request to our origin is an
 * operation of /openapi.json or the console's own. The HTTP details (cookies, state, PKCE, refusals) are
 * test/int/api/console-oidc.int.spec.ts's.
 */
const WAIT = { timeout: 30_000 };
const LABEL = 'Test IdP';
const NO_MAPPING =
  'You signed in, but your account is not given access to any organisation here. Ask your operator to map it.';

describe('console sign-in with OpenID Connect in Chromium', () => {
  let s: TestServer;
  let idp: OidcProviderHandle;
  let chromium: LaunchedChromium;
  let base: string;
  let doc: OpenApiDoc;
  const record: BrowserRecord = { requested: [], problems: [] };

  before(async () => {
    // The service's URL is the one the browser uses and the provider redirects back to, so it is fixed first.
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const clientSecret = 'a-client-secret-for-the-e2e';
    idp = await startOidcProvider({
      clientId: 'capture-ledger-console',
      clientSecret,
      redirectUri: `${base}/console/oidc/test-idp/callback`,
      accounts: { 'legal-person': { groups: ['everyone', 'legal'] }, stranger: { groups: ['everyone'] } },
      claims: { openid: ['sub'], groups: ['groups'] },
      hostname: 'localhost',
    });
    s = await startTestServer({
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      CONSOLE_OIDC_PROVIDERS: JSON.stringify([
        {
          id: 'test-idp',
          label: LABEL,
          issuer: idp.issuer,
          clientId: 'capture-ledger-console',
          clientSecret,
          scope: 'openid groups',
          claim: 'groups',
          mappings: [{ value: 'legal', tenantId: 'oidc-legal', scopes: ['capture', 'read'] }],
        },
      ]),
    });
    assert.equal(s.baseUrl, base, 'the service listens where PUBLIC_BASE_URL says');
    doc = (await s.call('GET', '/openapi.json')).body;
    chromium = await launchChromium();
  });

  after(async () => {
    await chromium?.close();
    await s?.stop();
    await idp?.close();
  });

  async function newPage(): Promise<Page> {
    const page = await (await chromium.browser.createBrowserContext()).newPage();
    await page.setViewport({ width: 1280, height: 900 });
    watchPage(page, new URL(base).origin, record);
    return page;
  }

  const at = (page: Page, path: string) => page.waitForFunction((p) => location.pathname === p, WAIT, path);
  const heading = (page: Page, text: string) =>
    page.waitForFunction((t) => document.querySelector('h1')?.textContent === t, WAIT, text);
  const textOf = (page: Page, selector: string) => page.$eval(selector, (e) => e.textContent ?? '');

  /** From our sign-in page through the provider's login and consent forms, as a person: click, type, submit. */
  async function signInAtProvider(page: Page, login: string): Promise<void> {
    const link = await page.waitForFunction(
      (text) => [...document.querySelectorAll('main a')].find((a) => a.textContent === text),
      WAIT,
      `Sign in with ${LABEL}`,
    );
    await (link as unknown as { click(): Promise<void> }).click();
    await page.waitForSelector('input[name=login]', WAIT).catch(async (err) => {
      throw new Error(`no login form at ${page.url()}: ${(await page.content()).slice(0, 400)}`, { cause: err });
    });
    assert.equal(new URL(page.url()).origin, new URL(idp.issuer).origin, "the provider's login form");
    await page.type('input[name=login]', login);
    await page.type('input[name=password]', 'any password');
    await page.click('button[type=submit]');
    // The consent form: one button, "Continue".
    await page.waitForSelector('input[name=prompt][value=consent]', WAIT);
    await page.click('button[type=submit]');
  }

  it('a mapped person signs in through the provider, submits a capture and signs out', {
    timeout: 300_000,
  }, async () => {
    const page = await newPage();
    await page.goto(`${base}/console/captures`, { waitUntil: 'load' });
    await at(page, '/console/sign-in');
    await heading(page, 'Sign in');
    await page.waitForFunction((t) => document.querySelector('main')?.textContent?.includes(t), WAIT, LABEL);
    await assertAccessible(page, 'sign-in with a provider');

    await signInAtProvider(page, 'legal-person');
    await at(page, '/console/captures');
    await heading(page, 'Captures');
    await page.waitForFunction(() => /Tenant oidc-legal/.test(document.querySelector('nav')?.textContent ?? ''), WAIT);
    await page.waitForFunction(() => !/Loading/.test(document.querySelector('main')?.textContent ?? ''), WAIT);
    await assertAccessible(page, 'captures after the provider');

    // A capture submitted from the console: a POST with the session's CSRF token, allowed by the mapping's scopes.
    await page.click('nav a[href="/console/submit"]');
    await heading(page, 'Submit a capture');
    await page.type('textarea[name=urls]', 'http://127.0.0.1:9/oidc-e2e');
    await page.click('form button[type=submit].primary');
    await page.waitForSelector('.results li a', WAIT);
    const href = await page.$eval('.results li a', (a) => a.getAttribute('href') ?? '');
    const captureId = decodeURIComponent(href.split('/').pop()!);
    const status = await s.call('GET', `/v1/captures/${captureId}/status`);
    assert.equal(status.status, 200, status.text);
    assert.equal(status.body.status, 'pending', 'nothing listens on port 9; no worker runs here');
    // The tenant's list shows it (once the projection has it: the page polls while captures are pending).
    await page.click('nav a[href="/console/captures"]');
    await heading(page, 'Captures');
    await page.waitForSelector(`tr[data-capture="${captureId}"]`, WAIT);

    // Sign out from the account page: the session is gone, and a tenant page sends the browser to sign in.
    await page.click('nav a[href="/console/sign-in"]');
    await at(page, '/console/sign-in');
    assert.match(await textOf(page, 'section[aria-labelledby=tenant-heading]'), /Signed in as tenant oidc-legal/);
    await assertAccessible(page, 'account signed in through the provider');
    await page.click('section[aria-labelledby=tenant-heading] button');
    await page.waitForSelector('#tenant-key', WAIT);
    await page.goto(`${base}/console/captures`, { waitUntil: 'load' });
    await at(page, '/console/sign-in');
    await page.close();
  });

  it('a person whose claim maps to nothing ends on the sign-in page, told why', { timeout: 300_000 }, async () => {
    const page = await newPage();
    await page.goto(`${base}/console/sign-in`, { waitUntil: 'load' });
    await signInAtProvider(page, 'stranger');
    await page.waitForFunction(() => location.search === '?error=oidc_no_mapping', WAIT);
    await at(page, '/console/sign-in');
    await page.waitForSelector('[role=alert]', WAIT);
    assert.equal(await textOf(page, '[role=alert]'), NO_MAPPING);
    assert.equal(await page.$('nav a[href="/console/captures"]'), null, 'not signed in');
    await assertAccessible(page, 'sign-in refused: no mapping');
    await page.close();
  });

  it('the browser logged no error on our pages and made only documented requests', () => {
    assert.deepEqual(record.problems, []);
    assert.deepEqual(undocumentedRequests(doc, record.requested), []);
    assert.ok(record.requested.some((r) => r.startsWith('GET /console/oidc/test-idp/callback?')));
  });
});
