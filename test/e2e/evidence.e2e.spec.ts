import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import nacl from 'tweetnacl';
import { canonicalJsonBytes } from '../../src/domain/canonical-json.js';
import { signingKeyFromSeed } from '../../src/archive/signing-key.js';
import type { ArtifactStore } from '../../src/storage/artifact-store.js';
import { openArtifactStore } from '../../src/storage/jetstream-artifact-store.js';
import { storedArtifactName, tamperWithStoredObject } from '../support/stored-artifacts.js';
import { launchChromium, type LaunchedChromium } from '../../src/capture/browser-launch.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { type Infra, startInfra } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../support/test-server.js';
import { readJson, rezip, unzip, writeJson } from '../unit/archive/bundle-fixture.js';

/**
 * Evidence through the whole service (spec 2.5–2.7, 4.9, 4.10; DESIGN decision 7): the verify endpoint's
 * JSON and self-contained page for a real capture, tampering with the stored bundle, the size limit,
 * SIGNING_KEY=none, TSA_URL=none and key rotation across a restart on the same NATS + Postgres.
 * The bundle-level tampering cases themselves are unit-tested in test/unit/archive/bundle-verifier.unit.spec.ts;
 * here they go through the object store and the HTTP route.
 */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const seed = () => randomBytes(32).toString('base64');
const statuses = (body: { checks: Array<{ name: string; status: string }> }) =>
  body.checks.map((c) => [c.name, c.status]);
describe('evidence end to end: verification, tampering in storage, limits, key rotation', () => {
  let infra: Infra;
  let databaseUrl: string;
  let site: FixtureSite;
  let s: TestServer; // the server currently running the worker
  let token: string;
  let store: ArtifactStore;
  const seedA = seed();
  const seedB = seed();
  const keyA = signingKeyFromSeed(seedA);
  const keyB = signingKeyFromSeed(seedB);
  const env = {
    ROLES: 'api,projector,worker',
    ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    // Generous: on a busy host a cold browser's first render after a restart takes seconds, and a timed-out
    // attempt only starts another one.
    CAPTURE_TIMEOUT_MS: '20000',
    WORKER_CONCURRENCY: '1',
  };
  // The first capture (key A, built-in TSA): its record and its original stored bundle.
  let first: { id: string; rec: any; objectName: string; original: Uint8Array };

  async function capture(server: TestServer, path = '/simple'): Promise<any> {
    const r = await server.call('POST', '/v1/captures', { token, body: { url: site.url(path) } });
    assert.equal(r.status, 202, r.text);
    const status = await eventually(
      `capture ${r.body.id}`,
      async () => {
        const st = await server.call('GET', `/v1/captures/${r.body.id}/status`);
        return st.body.status === 'pending' ? undefined : st.body;
      },
      120_000,
      150,
    );
    assert.equal(status.status, 'complete', JSON.stringify(status));
    const rec = await server.call('GET', `/v1/captures/${r.body.id}`);
    assert.equal(rec.status, 200, rec.text);
    return rec.body;
  }

  const verify = (server: TestServer, id: string) => server.call('GET', `/v1/verify/${id}`);

  async function restart(vars: Record<string, string>): Promise<TestServer> {
    await s.stop();
    s = await startTestServer({ ...env, ...vars }, { infra, databaseUrl });
    store = await openArtifactStore(s.server.nats.nc);
    return s;
  }

  before(async () => {
    [infra, site] = await Promise.all([startInfra(), startFixtureSite()]);
    databaseUrl = await infra.freshDatabase();
    s = await startTestServer({ ...env, SIGNING_KEY: seedA, TSA_URL: '' }, { infra, databaseUrl });
    store = await openArtifactStore(s.server.nats.nc);
    const created = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      from: '127.0.0.50',
      body: { tenantId: 'evidence', scopes: ['capture'], name: 'evidence e2e' },
    });
    assert.equal(created.status, 201, created.text);
    token = created.body.key;
    const rec = await capture(s);
    const objectName = await storedArtifactName(s.server, rec.id, 'wacz');
    assert.ok(objectName, "the completion names the bundle's object");
    const original = await store.get(objectName);
    assert.ok(original, 'the bundle is in the object store under the name the completion gives');
    first = { id: rec.id, rec, objectName, original };
  });

  after(async () => {
    await s?.stop();
    await site?.close();
    await infra?.stop();
  });

  it('verify JSON for a fresh capture: verified, 4 checks in order, signing fields match the record and the published key', async () => {
    const { rec, id } = first;
    assert.match(rec.verifyUrl, new RegExp(`/v1/verify/${id}$`));
    assert.match(rec.wacz.bundleHash, /^sha256:[0-9a-f]{64}$/);
    const v = await verify(s, id);
    assert.equal(v.status, 200, v.text);
    assert.match(v.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(v.body.verified, true, JSON.stringify(v.body.checks));
    assert.deepEqual(statuses(v.body), [
      ['artifactHashes', 'pass'],
      ['bundleHash', 'pass'],
      ['signature', 'pass'],
      ['timestamp', 'pass'],
    ]);
    assert.deepEqual(v.body.capture, {
      id,
      url: rec.url, // an extension beside spec 2.6's fields
      createdAt: rec.createdAt,
      completedAt: rec.completedAt,
      renderQuality: rec.renderQuality,
    });

    const current = await s.call('GET', '/.well-known/signing-key');
    assert.equal(current.status, 200);
    assert.deepEqual(current.body, { algorithm: 'Ed25519', publicKey: keyA.publicKeyBase64, keyId: keyA.keyId });

    const signing = v.body.signing;
    assert.equal(signing.bundleHash, rec.wacz.bundleHash);
    assert.equal(signing.publicKey, current.body.publicKey);
    assert.equal(signing.keyId, current.body.keyId);
    assert.match(signing.signedAt, ISO);
    assert.ok(Date.parse(signing.signedAt) >= Date.parse(rec.createdAt), 'signed after the capture was created');
    assert.ok(
      nacl.sign.detached.verify(
        new TextEncoder().encode(signing.bundleHash),
        Buffer.from(signing.signature, 'base64'),
        keyA.publicKey,
      ),
      'the reported signature is Ed25519 over the bundleHash string with the published key',
    );
    assert.match(signing.timestamp.genTime, ISO);
    assert.ok(Math.abs(Date.parse(signing.timestamp.genTime) - Date.parse(signing.signedAt)) < 60_000);
    // The built-in TSA is named where its CA is published, not by its listener's loopback address.
    assert.equal(signing.timestamp.tsa, `${s.server.ctx.config.PUBLIC_BASE_URL}/.well-known/tsa-certificates`);

    // The downloadable bundle is the one that was verified.
    const wacz = await s.call('GET', new URL(rec.wacz.url).pathname);
    assert.equal(wacz.status, 200);
    const dp = unzip(wacz.raw)['datapackage.json'] as Uint8Array;
    assert.equal(`sha256:${createHash('sha256').update(dp).digest('hex')}`, rec.wacz.bundleHash);
  });

  it('Accept: text/html gives a self-contained page that shows the verdict and every check, loading nothing from elsewhere', async () => {
    const { id, rec } = first;
    const raw = await s.call('GET', `/v1/verify/${id}`, { headers: { accept: 'text/html' } });
    assert.equal(raw.status, 200);
    assert.match(raw.headers.get('content-type') ?? '', /^text\/html/);
    // CSP: nothing but this origin and the page's own nonce'd inline script/style.
    const csp = raw.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0])
        .map(([name, ...sources]) => [name!, sources]),
    );
    assert.deepEqual(directives.get('default-src'), ["'none'"], csp);
    // Frames: only the replay origin, which is never this one (archived pages run there).
    const frames = directives.get('frame-src') ?? [];
    assert.equal(frames.length, 1, csp);
    assert.notEqual(new URL(frames[0]!).origin, new URL(s.baseUrl).origin, 'the replay is framed from another origin');
    directives.delete('frame-src');
    for (const [name, sources] of directives) {
      for (const source of sources) {
        assert.ok(/^'(none|self)'$|^'nonce-[A-Za-z0-9+/=]+'$/.test(source), `${name} allows ${source}: ${csp}`);
      }
    }
    // Absolute URLs: only the replay frame's, on the replay origin the CSP names.
    const html = raw.text.replace(`src="${frames[0]}/`, 'src="/');
    assert.ok(!/\b(src|href)=["']?(https?:)?\/\//i.test(html), 'no absolute asset URLs in the page');

    const chromium: LaunchedChromium = await launchChromium();
    try {
      const page = await chromium.browser.newPage();
      const requests: Array<{ url: string; accept: string }> = [];
      page.on('request', (request) => requests.push({ url: request.url(), accept: request.headers()['accept'] ?? '' }));
      const verifyPath = new URL(rec.verifyUrl).pathname;
      const origin = new URL(s.baseUrl).origin;

      const showVerdict = async () => {
        requests.length = 0;
        // A plain navigation: Chromium's own Accept header (text/html first) selects the page.
        const response = await page.goto(origin + verifyPath, { waitUntil: 'load' });
        assert.equal(response?.status(), 200);
        assert.match(response?.headers()['content-type'] ?? '', /^text\/html/);
        await page.waitForFunction(
          () => !/Verifying/.test(document.getElementById('verdict')?.textContent ?? 'Verifying'),
          { timeout: 10_000 },
        );
        return page.evaluate(() => ({
          verdict: document.getElementById('verdict')?.textContent ?? '',
          verdictClass: document.getElementById('verdict')?.className ?? '',
          // Each row: the check's spec name (the row's data-check; the cell says it in words), status, detail.
          rows: [...document.querySelectorAll<HTMLElement>('#checks tbody tr')].map((tr) => [
            tr.dataset.check ?? '',
            ...[...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent ?? ''),
          ]),
          facts: document.querySelector('#facts')?.textContent ?? '',
        }));
      };

      const good = await showVerdict();
      assert.match(good.verdict, /^This is the page at .+ as it looked on .+ UTC\. Nothing in it has changed since\.$/);
      assert.equal(good.verdictClass, 'ok');
      assert.deepEqual(
        good.rows.map(([name, status]) => [name, status]),
        [
          ['artifactHashes', 'pass'],
          ['bundleHash', 'pass'],
          ['signature', 'pass'],
          ['timestamp', 'pass'],
        ],
      );
      assert.ok(good.facts.includes(rec.wacz.bundleHash), 'the page shows the bundle hash');
      assert.ok(good.facts.includes(keyA.publicKeyBase64), 'the page shows the public key');
      // The page fetched the JSON result itself, from the same URL.
      assert.ok(
        requests.some((r) => new URL(r.url).pathname === verifyPath && /application\/json/.test(r.accept)),
        JSON.stringify(requests),
      );
      // Nothing from elsewhere: this origin, and the replay frame's own origin.
      const replayOrigin = new URL(frames[0]!).origin;
      for (const r of requests) {
        assert.ok([origin, replayOrigin].includes(new URL(r.url).origin), `the page requested ${r.url}`);
      }

      // The same page says so when the stored bundle was altered.
      const files = unzip(first.original);
      const warc = Buffer.from(files['archive/data.warc.gz'] as Uint8Array);
      warc[100] = (warc[100] as number) ^ 0xff;
      files['archive/data.warc.gz'] = warc;
      await tamperWithStoredObject(s.server.nats.nc, first.objectName, rezip(files));
      try {
        const bad = await showVerdict();
        assert.match(bad.verdict, /cannot be trusted: at least one file in it differs from the one that was signed/);
        assert.equal(bad.verdictClass, 'bad');
        assert.deepEqual(bad.rows[0]?.slice(0, 2), ['artifactHashes', 'fail']);
        assert.match(bad.rows[0]?.[2] ?? '', /archive\/data\.warc\.gz does not match its sha256/);
      } finally {
        await tamperWithStoredObject(s.server.nats.nc, first.objectName, first.original);
      }
    } finally {
      await chromium.close();
    }
  });

  it('a bundle altered in storage fails exactly the check it should, with HTTP 200 and verified false', async () => {
    const { id, objectName, original } = first;
    const digestOf = (files: Record<string, Uint8Array>) => readJson(files, 'datapackage-digest.json');
    const otherToken = await s.server.evidence.notary!.timestamp(
      new Uint8Array(createHash('sha256').update('another digest').digest()),
    );

    const cases: Array<{
      name: string;
      alter: (files: Record<string, Uint8Array>) => void;
      expect: string[];
      detail: [number, RegExp];
    }> = [
      {
        name: 'a WARC byte changed',
        alter(files) {
          const warc = Buffer.from(files['archive/data.warc.gz'] as Uint8Array);
          warc[warc.length - 5] = (warc[warc.length - 5] as number) ^ 0xff;
          files['archive/data.warc.gz'] = warc;
        },
        expect: ['fail', 'pass', 'pass', 'pass'],
        detail: [0, /archive\/data\.warc\.gz does not match its sha256/],
      },
      {
        name: 'datapackage.json changed',
        alter(files) {
          const dp = readJson(files, 'datapackage.json');
          dp.captureLedger.url = 'https://example.org/not-what-was-captured';
          files['datapackage.json'] = canonicalJsonBytes(dp);
        },
        expect: ['pass', 'fail', 'skip', 'skip'],
        detail: [1, /datapackage\.json hashes to sha256:[0-9a-f]{64} but datapackage-digest\.json records/],
      },
      {
        name: 'signature bytes changed',
        alter(files) {
          const digest = digestOf(files);
          const signature = Buffer.from(digest.signedData.signature, 'base64');
          signature[0] = (signature[0] as number) ^ 0x01;
          digest.signedData.signature = signature.toString('base64');
          writeJson(files, 'datapackage-digest.json', digest);
        },
        expect: ['pass', 'pass', 'fail', 'pass'],
        detail: [2, /Ed25519 signature does not verify/],
      },
      {
        name: 'a timestamp token for another digest',
        alter(files) {
          const digest = digestOf(files);
          digest.signedData.timestamp = {
            token: Buffer.from(otherToken.token).toString('base64'),
            genTime: otherToken.genTime,
            tsa: otherToken.tsa,
          };
          writeJson(files, 'datapackage-digest.json', digest);
        },
        expect: ['pass', 'pass', 'pass', 'fail'],
        detail: [3, /message imprint is not the bundle digest/],
      },
    ];

    try {
      for (const c of cases) {
        const files = unzip(original);
        c.alter(files);
        await tamperWithStoredObject(s.server.nats.nc, objectName, rezip(files));
        const v = await verify(s, id);
        assert.equal(v.status, 200, `${c.name}: ${v.text}`);
        assert.equal(v.body.verified, false, c.name);
        assert.deepEqual(
          statuses(v.body),
          ['artifactHashes', 'bundleHash', 'signature', 'timestamp'].map((n, i) => [n, c.expect[i]]),
          c.name,
        );
        assert.match(v.body.checks[c.detail[0]].detail ?? '', c.detail[1], c.name);
        assert.ok(v.body.signing, `${c.name}: signing is still reported`);
      }
    } finally {
      await tamperWithStoredObject(s.server.nats.nc, objectName, original);
    }
    const restored = await verify(s, id);
    assert.equal(restored.body.verified, true, 'the original bundle verifies again');
  });

  it('keeps cookie and authorization values out of the signed WACZ, names and all else intact', async () => {
    const rec = await capture(s, '/credentials');
    const bytes = await store.get((await storedArtifactName(s.server, rec.id, 'wacz'))!);
    assert.ok(bytes);
    const warc = gunzipSync(Buffer.from(unzip(bytes)['archive/data.warc.gz'] as Uint8Array)).toString('latin1');
    assert.ok(
      site.requests.some((r) => r.method === 'POST' && r.path === '/echo'),
      'the page sent its credentialed request',
    );
    assert.doesNotMatch(warc, /fixture-cookie-secret|fixture-token-secret/);
    assert.match(warc, /\r\nSet-Cookie: \[redacted\]\r\n/i);
    assert.match(warc, /\r\nAuthorization: \[redacted\]\r\n/i);
    assert.match(warc, /\r\nCookie: \[redacted\]\r\n/i);
    assert.equal((await verify(s, rec.id)).body.verified, true);
  });

  it('a bundle above VERIFY_MAX_BYTES is refused with 422', async () => {
    assert.ok(first.rec.wacz.size > 1024);
    const small = await startTestServer(
      { ROLES: 'api', SIGNING_KEY: seedA, TSA_URL: '', VERIFY_MAX_BYTES: '1024' },
      { infra, databaseUrl },
    );
    try {
      const r = await verify(small, first.id);
      assert.equal(r.status, 422, r.text);
      assertProblem(r.body, 422);
      assert.match(r.body.detail, /1024/);
      const page = await small.call('GET', `/v1/verify/${first.id}`, { headers: { accept: 'text/html' } });
      assert.equal(page.status, 422);
    } finally {
      await small.stop();
    }
    assert.equal((await verify(s, first.id)).status, 200, 'the default limit allows the same bundle');
  });

  it('key rotation: restarted with key B, both keys are published with archivedAt, B is current, the old capture still verifies', async () => {
    await restart({ SIGNING_KEY: seedB, TSA_URL: '' });
    const current = await eventually('key B to become current', async () => {
      const r = await s.call('GET', '/.well-known/signing-key');
      return r.body?.keyId === keyB.keyId ? r.body : undefined;
    });
    assert.deepEqual(current, { algorithm: 'Ed25519', publicKey: keyB.publicKeyBase64, keyId: keyB.keyId });

    const all = await s.call('GET', '/.well-known/signing-keys');
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.keys.map((k: any) => [k.keyId, k.algorithm, k.publicKey]),
      [
        [keyA.keyId, 'Ed25519', keyA.publicKeyBase64],
        [keyB.keyId, 'Ed25519', keyB.publicKeyBase64],
      ],
    );
    for (const k of all.body.keys) assert.match(k.archivedAt, ISO);
    assert.ok(Date.parse(all.body.keys[0].archivedAt) <= Date.parse(all.body.keys[1].archivedAt));

    const old = await verify(s, first.id);
    assert.equal(old.status, 200);
    assert.equal(old.body.verified, true, JSON.stringify(old.body.checks));
    assert.deepEqual(
      statuses(old.body).map(([, status]) => status),
      ['pass', 'pass', 'pass', 'pass'],
    );
    assert.equal(old.body.signing.keyId, keyA.keyId);
    assert.equal(old.body.signing.publicKey, keyA.publicKeyBase64);
  });

  it('TSA_URL=none: a new capture gets a v0.1.0 bundle with 3 checks; bundles the built-in TSA stamped before still verify', async () => {
    await restart({ SIGNING_KEY: seedB, TSA_URL: 'none' });
    const rec = await capture(s);
    assert.ok(rec.wacz && rec.verifyUrl);
    const bytes = await store.get((await storedArtifactName(s.server, rec.id, 'wacz'))!);
    assert.ok(bytes);
    const files = unzip(bytes);
    assert.equal(readJson(files, 'datapackage.json').captureLedger.bundleVersion, '0.1.0');
    assert.equal(readJson(files, 'datapackage-digest.json').signedData.timestamp, undefined);
    const v = await verify(s, rec.id);
    assert.equal(v.status, 200);
    assert.equal(v.body.verified, true, JSON.stringify(v.body.checks));
    assert.deepEqual(statuses(v.body), [
      ['artifactHashes', 'pass'],
      ['bundleHash', 'pass'],
      ['signature', 'pass'],
    ]);
    assert.equal(v.body.signing.keyId, keyB.keyId);
    assert.equal(v.body.signing.timestamp, null);

    // Turning the built-in TSA off does not un-verify what it time-stamped before.
    const old = await verify(s, first.id);
    assert.equal(old.body.verified, true, JSON.stringify(old.body.checks));
    assert.deepEqual(
      statuses(old.body).map(([, status]) => status),
      ['pass', 'pass', 'pass', 'pass'],
    );
  });

  it('SIGNING_KEY=none: the record has no wacz and no verifyUrl, and verify answers 404', async () => {
    await restart({ SIGNING_KEY: 'none', TSA_URL: 'none' });
    const rec = await capture(s);
    assert.equal(rec.wacz, undefined);
    assert.equal(rec.verifyUrl, undefined);
    assert.equal(await storedArtifactName(s.server, rec.id, 'wacz'), null, 'no bundle was stored');
    const v = await verify(s, rec.id);
    assert.equal(v.status, 404, v.text);
    assertProblem(v.body, 404);
    const page = await s.call('GET', `/v1/verify/${rec.id}`, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 404);
    assert.equal((await s.call('GET', `/v1/captures/${rec.id}/artifacts/wacz`)).status, 404);
  });
});
