import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { launchChromium } from '../../src/capture/browser-launch.js';
import { connectNats } from '../../src/infra/nats.js';
import { profilesForWorker } from '../../src/profiles/index.js';
import {
  MEMBER,
  MEMBERS_ONLY_TEXT,
  SIGN_IN_WALL_TEXT,
  type SignInSite,
  startSignInSite,
} from '../support/sign-in-site.js';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Captures behind a sign-in, as a person does it (docs/profiles.md): sign in to a site in a browser, upload its
 * cookies and storage as a profile, capture the members-only page with it and without it. The bundle, the answers
 * and every byte of the service's DATA_DIR (NATS and Postgres files) hold no cookie or storage value; another tenant
 * cannot see or use the profile; a deleted profile cannot be used and its contents no longer open.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

describe('browser profiles: captures behind a sign-in', () => {
  let s: TestServer;
  let site: SignInSite;
  let token: string;
  let otherToken: string;
  let storageState: { cookies: any[]; origins: any[] };
  let profileId: string;

  async function submit(body: Record<string, unknown>, key = token) {
    return s.call('POST', '/v1/captures', { token: key, body });
  }

  /** Submits and waits for the outcome; the record and the wall time from submission to completion. */
  async function capture(body: Record<string, unknown>): Promise<{ rec: any; ms: number }> {
    const started = performance.now();
    const r = await submit(body);
    assert.equal(r.status, 202, r.text);
    const deadline = Date.now() + 120_000;
    for (;;) {
      const st = await s.call('GET', `/v1/captures/${r.body.id}/status`, { token });
      if (st.body.status === 'complete') break;
      assert.notEqual(st.body.status, 'failed', JSON.stringify(st.body));
      if (Date.now() > deadline) throw new Error(`capture ${r.body.id} still pending`);
      await sleep(100);
    }
    const ms = performance.now() - started;
    return { rec: (await s.call('GET', `/v1/captures/${r.body.id}`, { token })).body, ms };
  }

  const html = async (rec: any) => (await s.call('GET', new URL(rec.artifacts.html).pathname, { token })).text;

  before(async () => {
    site = await startSignInSite();
    s = await startTestServer({
      ROLES: 'api,projector,worker',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      CAPTURE_TIMEOUT_MS: '15000',
      WORKER_CONCURRENCY: '1',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
    });
    for (const tenantId of ['members', 'stranger']) {
      const created = await s.call('POST', '/v1/admin/keys', {
        token: ADMIN_KEY,
        body: { tenantId, scopes: ['capture', 'read'], name: `${tenantId} e2e` },
      });
      assert.equal(created.status, 201, created.text);
      if (tenantId === 'members') token = created.body.key;
      else otherToken = created.body.key;
    }

    // A person signs in to the site in a browser of their own; the cookies and storage are what it kept.
    const chromium = await launchChromium();
    try {
      const context = await chromium.browser.createBrowserContext();
      const page = await context.newPage();
      await page.goto(site.url('/login'));
      await page.type('#user', MEMBER.user);
      await page.type('#password', MEMBER.password);
      await Promise.all([page.waitForNavigation(), page.click('#sign-in')]);
      await page.waitForFunction(() => location.pathname === '/members', { timeout: 60_000 });
      assert.ok((await page.content()).includes(MEMBERS_ONLY_TEXT));
      const session = await page.createCDPSession();
      const { cookies } = (await session.send('Network.getAllCookies')) as { cookies: any[] };
      const items = await page.evaluate(() =>
        Object.keys(localStorage).map((name) => ({ name, value: localStorage.getItem(name) ?? '' })),
      );
      storageState = {
        cookies: cookies.map((c) => ({
          name: c.name,
          value: c.value,
          domain: c.domain,
          path: c.path,
          expires: c.session ? -1 : c.expires,
          httpOnly: c.httpOnly,
          secure: c.secure,
          sameSite: c.sameSite ?? 'Lax',
        })),
        origins: [{ origin: site.origin, localStorage: items }],
      };
    } finally {
      await chromium.close();
    }
    assert.ok(
      storageState.cookies.some((c) => c.value === site.sessionValue),
      'the browser kept the session cookie',
    );
  });

  after(async () => {
    await s?.stop();
    await site?.close();
  });

  it('creates a profile from the uploaded state and never answers a value', async () => {
    const created = await s.call('POST', '/v1/profiles', {
      token,
      body: { name: 'Members site', contents: storageState },
    });
    assert.equal(created.status, 201, created.text);
    profileId = created.body.id;
    assert.match(profileId, /^prf_[0-9a-f]{32}$/);
    assert.equal(created.body.version, 1);
    assert.deepEqual(created.body.sites, ['127.0.0.1']);
    assert.equal(created.body.cookieCount, 1);
    assert.equal(created.body.originCount, 1);
    assert.match(created.body.createdBy, /^key:[0-9a-f]{64}$/);
    const listed = await s.call('GET', '/v1/profiles', { token });
    const shown = await s.call('GET', `/v1/profiles/${profileId}`, { token });
    for (const answer of [created, listed, shown]) {
      assert.ok(!answer.text.includes(site.sessionValue) && !answer.text.includes(site.storageValue), answer.text);
    }
    assert.deepEqual(
      listed.body.data.map((p: any) => p.id),
      [profileId],
    );
  });

  it('reads the cookie exports of browser extensions and cookies.txt; refuses a bad upload with 400 naming the field', async () => {
    const [cookie] = storageState.cookies;
    const extension = [
      { ...cookie, expirationDate: 4102444800, hostOnly: true, sameSite: 'lax', session: false, storeId: '0' },
    ];
    const fromExtension = await s.call('POST', '/v1/profiles', { token, body: { name: 'ext', contents: extension } });
    assert.equal(fromExtension.status, 201, fromExtension.text);
    const netscape = `# Netscape HTTP Cookie File\n#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tmember_session\t${site.sessionValue}\n`;
    const fromText = await s.call('POST', '/v1/profiles', { token, body: { name: 'txt', contents: netscape } });
    assert.equal(fromText.status, 201, fromText.text);
    assert.equal(fromText.body.cookieCount, 1);

    const bad = await s.call('POST', '/v1/profiles', {
      token,
      body: { name: 'bad', contents: { cookies: [{ name: 'a', value: site.sessionValue, domain: 'no such host!' }] } },
    });
    assert.equal(bad.status, 400, bad.text);
    assertProblem(bad.body, 400);
    assert.match(bad.body.detail, /body\.contents\.cookies\[0\]\.domain/);
    assert.ok(!bad.text.includes(site.sessionValue));
    const badLine = await s.call('POST', '/v1/profiles', { token, body: { name: 'bad', contents: 'one\ttwo\n' } });
    assert.equal(badLine.status, 400);
    assert.match(badLine.body.detail, /line 1/);
    const tooMany = await s.call('POST', '/v1/profiles', {
      token,
      body: {
        name: 'many',
        contents: Array.from({ length: 3001 }, (_, i) => ({ name: `c${i}`, value: 'v', domain: 'example.org' })),
      },
    });
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.body.detail, /at most 3000 cookies/);
    for (const extra of [fromExtension.body.id, fromText.body.id]) {
      assert.equal((await s.call('DELETE', `/v1/profiles/${extra}`, { token })).status, 200);
    }
  });

  it('renames a profile and replaces its contents as a new version', async () => {
    const renamed = await s.call('PATCH', `/v1/profiles/${profileId}`, { token, body: { name: 'Members renamed' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.name, 'Members renamed');
    const replaced = await s.call('PUT', `/v1/profiles/${profileId}/contents`, {
      token,
      body: { contents: storageState },
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.body.version, 2);
  });

  it('captures the members-only page signed in, and the sign-in wall without; the record names the profile, never a value', async () => {
    const signed = await capture({ url: site.url('/members'), options: { profile: profileId } });
    const signedHtml = await html(signed.rec);
    assert.ok(signedHtml.includes(MEMBERS_ONLY_TEXT), signedHtml);
    assert.match(signedHtml, /data-theme="restored"/, 'the localStorage item was there before the page ran');
    assert.deepEqual(signed.rec.captureSettings.signedIn.profile, {
      id: profileId,
      name: 'Members renamed',
      version: 2,
    });
    assert.deepEqual(signed.rec.captureSettings.signedIn.sites, ['127.0.0.1']);

    const wall = await capture({ url: site.url('/members') });
    assert.ok((await html(wall.rec)).includes(SIGN_IN_WALL_TEXT));
    assert.equal(wall.rec.captureSettings.signedIn, undefined);

    // The bundle: signed datapackage.json says signed in; no file of it holds the cookie or the storage value.
    const wacz = await s.call('GET', new URL(signed.rec.wacz.url).pathname, { token });
    assert.equal(wacz.status, 200);
    const raw = Buffer.from(wacz.raw);
    const files = unzipSync(new Uint8Array(wacz.raw));
    const datapackage = JSON.parse(new TextDecoder().decode(files['datapackage.json']!));
    assert.equal(datapackage.captureLedger.captureSettings.signedIn.profile.id, profileId);
    const provenance = JSON.parse(new TextDecoder().decode(files['provenance/provenance.json']!));
    assert.equal(provenance.captureSettings.signedIn.profile.version, 2);
    for (const secret of [site.sessionValue, site.storageValue]) {
      assert.equal(raw.indexOf(secret), -1, 'not in the WACZ bytes');
      for (const [name, bytes] of Object.entries(files)) {
        assert.equal(Buffer.from(bytes).indexOf(secret), -1, `not in ${name}`);
      }
    }
    const record = await s.call('GET', `/v1/captures/${signed.rec.id}`, { token });
    assert.ok(!record.text.includes(site.sessionValue) && !record.text.includes(site.storageValue));

    // The certificate says so too, in words; pdftotext reads it as any reader would.
    const certificate = await s.call('GET', `/v1/captures/${signed.rec.id}/certificate`, { token });
    assert.equal(certificate.status, 200, certificate.text.slice(0, 300));
    const pdfPath = join(s.infra.dir, 'signed-in-certificate.pdf');
    await writeFile(pdfPath, certificate.raw);
    const text = await new Promise<string>((resolve, reject) =>
      execFile('pdftotext', ['-layout', pdfPath, '-'], { timeout: 120_000 }, (err, out) =>
        err ? reject(err) : resolve(out),
      ),
    );
    const flat = text.replace(/\s+/g, ' ');
    assert.ok(flat.includes('captured signed in: browser profile Members renamed'), flat);
    assert.ok(flat.includes(profileId) && flat.includes('holding state for 127.0.0.1'), flat);
    for (const secret of [site.sessionValue, site.storageValue]) {
      assert.equal(certificate.raw.indexOf(secret), -1, 'not in the certificate');
    }
    await rm(pdfPath);

    // The profile's last use is on record (profile.used, projected).
    const shown = await s.call('GET', `/v1/profiles/${profileId}`, { token });
    assert.notEqual(shown.body.lastUsedAt, null);
  });

  it('measures the added time of a capture with a profile (black box, the same page with and without)', async () => {
    // The sign-in form renders the same signed in or not, so the only difference is loading the profile.
    const page = site.url('/login');
    const withProfile: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < 4; i++) {
      without.push((await capture({ url: page })).ms);
      withProfile.push((await capture({ url: page, options: { profile: profileId } })).ms);
    }
    const median = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2;
    };
    console.log(
      `profile capture timing (submit to complete): with ${withProfile.map(Math.round).join(', ')} ms, without ${without.map(Math.round).join(', ')} ms; median added ${Math.round(median(withProfile) - median(without))} ms`,
    );
  });

  it('another tenant gets 404 for the profile and 422 naming the field for using it', async () => {
    assert.equal((await s.call('GET', `/v1/profiles/${profileId}`, { token: otherToken })).status, 404);
    assert.equal((await s.call('DELETE', `/v1/profiles/${profileId}`, { token: otherToken })).status, 404);
    const listed = await s.call('GET', '/v1/profiles', { token: otherToken });
    assert.deepEqual(listed.body.data, []);
    const single = await submit({ url: site.url('/members'), options: { profile: profileId } }, otherToken);
    assert.equal(single.status, 422, single.text);
    assertProblem(single.body, 422);
    assert.match(single.body.detail, /^options\.profile: /);
    const batch = await s.call('POST', '/v1/captures/batch', {
      token: otherToken,
      body: { urls: [{ url: site.url('/members'), options: { profile: profileId } }] },
    });
    assert.equal(batch.status, 207, batch.text);
    assert.equal(batch.body.items[0].status, 422);
    assert.match(batch.body.items[0].error.detail, /^urls\[0\]\.options\.profile: /);
    const schedule = await s.call('POST', '/v1/schedules', {
      token: otherToken,
      body: { url: site.url('/members'), name: 'nightly', cron: '0 3 * * *', options: { profile: profileId } },
    });
    assert.equal(schedule.status, 422, schedule.text);
    assert.match(schedule.body.detail, /options\.profile/);
  });

  it("keeps no cookie or storage value in clear anywhere in the service's DATA_DIR", async () => {
    const secrets = [site.sessionValue, site.storageValue].map((v) => Buffer.from(v));
    const files = await filesUnder(s.infra.dir);
    assert.ok(
      files.some((f) => f.includes(`${join('nats', '')}`)),
      'NATS store files are there',
    );
    assert.ok(
      files.some((f) => f.includes(`${join('pg', '')}`)),
      'Postgres files are there',
    );
    for (const file of files) {
      const bytes = await readFile(file).catch(() => null);
      if (!bytes) continue;
      for (const secret of secrets) assert.equal(bytes.indexOf(secret), -1, `${file} holds a value in clear`);
    }
  });

  it('deletes a profile: it can no longer be used and its contents no longer open', async () => {
    const deleted = await s.call('DELETE', `/v1/profiles/${profileId}`, { token });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, { id: profileId, deleted: true });
    assert.equal((await s.call('GET', `/v1/profiles/${profileId}`, { token })).status, 404);
    const used = await submit({ url: site.url('/members'), options: { profile: profileId } });
    assert.equal(used.status, 422, used.text);
    const nats = await connectNats(s.infra.nats.url, 'profiles-e2e');
    try {
      const { openProfile } = await profilesForWorker({ nc: nats.nc, config: s.server.ctx.config });
      assert.equal(await openProfile('members', profileId), null);
    } finally {
      await nats.nc.close();
    }
  });
});
