import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { launchChromium, type LaunchedChromium } from '../../src/capture/browser-launch.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * What capture and web-archiving users expect, through the whole service: capture options
 * (validated, applied, recorded, signed), the pdf artifact, the provenance record (JSON and HTML), the main
 * document's HTTP status, Range + CORS on the WACZ download, self-issued local-TSA timestamps named as such,
 * and the verification page replaying the archived page beside the checks in headless Chromium.
 */

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('capture options, provenance, downloads and replay beside verification', () => {
  let s: TestServer;
  let site: FixtureSite;
  let token: string;
  let rec: any;

  async function captureRecord(body: Record<string, unknown>): Promise<any> {
    const r = await s.call('POST', '/v1/captures', { token, body });
    assert.equal(r.status, 202, r.text);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const st = await s.call('GET', `/v1/captures/${r.body.id}/status`);
      if (st.body.status === 'complete') break;
      assert.notEqual(st.body.status, 'failed', JSON.stringify(st.body));
      if (Date.now() > deadline) throw new Error(`capture ${r.body.id} still pending`);
      await sleep(200);
    }
    return (await s.call('GET', `/v1/captures/${r.body.id}`)).body;
  }

  before(async () => {
    site = await startFixtureSite();
    s = await startTestServer({
      ROLES: 'api,projector,worker',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      CAPTURE_TIMEOUT_MS: '8000',
      WORKER_CONCURRENCY: '1',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
    });
    const created = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'options', scopes: ['capture'], name: 'options e2e' },
    });
    assert.equal(created.status, 201, created.text);
    token = created.body.key;
    rec = await captureRecord({
      url: site.url('/simple'),
      options: {
        viewport: { width: 1024, height: 700 },
        fullPage: false,
        waitForSelector: 'h1',
        delayMs: 100,
        pdf: true,
      },
    });
  });

  after(async () => {
    await s?.stop();
    await site?.close();
  });

  it('refuses a bad option with 400 naming the field — single, batch item and schedule — and admits nothing', async () => {
    const single = await s.call('POST', '/v1/captures', {
      token,
      body: { url: site.url('/simple'), options: { viewport: { width: 100, height: 700 } } },
    });
    assert.equal(single.status, 400);
    assertProblem(single.body, 400);
    assert.match(single.body.detail, /options\.viewport\.width/);
    const unknown = await s.call('POST', '/v1/captures', {
      token,
      body: { url: site.url('/simple'), options: { fullpage: true } },
    });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.detail, /fullpage/);
    // The behaviors and their budget are checked the same way.
    for (const [options, field] of [
      [{ behaviorTimeout: 91 }, /options\.behaviorTimeout/],
      [{ behaviors: ['expand', 'dance'] }, /options\.behaviors/],
      // The selectors whose boxes are recorded parse as the diff parses them.
      [{ recordBoxes: ['aside.ad', 'div[['] }, /options\.recordBoxes/],
      [{ recordBoxes: Array.from({ length: 21 }, (_, i) => `#a${i}`) }, /options\.recordBoxes/],
      // The patterns whose text boxes are recorded compile as the diff's ignoreText do (the request schema's path
      // names the entry `.0`; a batch item's check names it `[0]`, below).
      [
        { recordTextBoxes: ['(unclosed'] },
        /options\.recordTextBoxes\.0: '\(unclosed' is not a valid regular expression/,
      ],
      [{ recordTextBoxes: Array.from({ length: 21 }, (_, i) => `a${i}`) }, /options\.recordTextBoxes/],
    ] as const) {
      const refused = await s.call('POST', '/v1/captures', { token, body: { url: site.url('/simple'), options } });
      assert.equal(refused.status, 400, refused.text);
      assertProblem(refused.body, 400);
      assert.match(refused.body.detail, field);
    }
    const batch = await s.call('POST', '/v1/captures/batch', {
      token,
      body: { urls: [{ url: site.url('/simple'), options: { delayMs: 20_000 } }] },
    });
    assert.equal(batch.status, 207);
    assert.equal(batch.body.items[0].status, 400);
    assert.match(batch.body.items[0].error.detail, /urls\[0\]\.options\.delayMs/);
    const badBoxes = await s.call('POST', '/v1/captures/batch', {
      token,
      body: { urls: [{ url: site.url('/simple'), options: { recordBoxes: ['a[['] } }] },
    });
    assert.equal(badBoxes.status, 207);
    assert.match(badBoxes.body.items[0].error.detail, /^urls\[0\]\.options\.recordBoxes\[0\]: 'a\[\[' is not a valid/);
    const badPattern = await s.call('POST', '/v1/captures/batch', {
      token,
      body: { urls: [{ url: site.url('/simple'), options: { recordTextBoxes: ['(a'] } }] },
    });
    assert.equal(badPattern.status, 207);
    assert.match(
      badPattern.body.items[0].error.detail,
      /^urls\[0\]\.options\.recordTextBoxes\[0\]: '\(a' is not a valid regular expression/,
    );
    assert.equal(batch.body.summary.accepted, 0);
    const schedule = await s.call('POST', '/v1/schedules', {
      token,
      body: { url: site.url('/simple'), name: 'bad', cron: '0 6 * * 1', options: { deviceScaleFactor: 5 } },
    });
    assert.equal(schedule.status, 400);
    assert.match(schedule.body.detail, /options\.deviceScaleFactor/);
    // The OpenAPI document describes them.
    const doc = await s.call('GET', '/openapi.json');
    const options =
      doc.body.paths['/v1/captures'].post.requestBody.content['application/json'].schema.properties.options;
    assert.deepEqual(Object.keys(options.properties).sort(), [
      'behaviorTimeout',
      'behaviors',
      'corroborate',
      'delayMs',
      'deviceScaleFactor',
      'fullPage',
      'pdf',
      'profile',
      'recordBoxes',
      'recordSession',
      'recordTextBoxes',
      'vantage',
      'viewport',
      'waitForSelector',
    ]);
    assert.equal(options.properties.viewport.properties.width.maximum, 3840);
    assert.ok(doc.body.paths['/v1/captures/{captureId}/provenance'], 'the provenance path is documented');
    assert.ok(doc.body.paths['/v1/schedules'].post.requestBody.content['application/json'].schema.properties.options);
    // A good one is kept with the schedule and shown on its record (created, read back, listed).
    const scheduled = { viewport: { width: 800, height: 600 }, fullPage: false };
    const created = await s.call('POST', '/v1/schedules', {
      token,
      body: { url: site.url('/simple'), name: 'with options', cron: '0 6 * * 1', options: scheduled },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.options, scheduled);
    assert.deepEqual((await s.call('GET', `/v1/schedules/${created.body.id}`, { token })).body.options, scheduled);
    await s.call('DELETE', `/v1/schedules/${created.body.id}`, { token });
  });

  it('applies and records the options; the pdf artifact is served and signed into the bundle', async () => {
    assert.equal(rec.renderQuality, 'full');
    assert.equal(rec.render.mainDocumentStatus, 200);
    assert.deepEqual(
      { ...rec.captureSettings, selectorWait: undefined },
      {
        version: 1,
        viewport: { width: 1024, height: 700 },
        deviceScaleFactor: 1,
        fullPage: false,
        waitForSelector: 'h1',
        selectorWait: undefined,
        delayMs: 100,
        pdf: true,
        consent: rec.captureSettings.consent,
        consentDetection: rec.captureSettings.consentDetection,
        behaviors: rec.captureSettings.behaviors,
        // The fixture page runs a script, so it keeps the full quiet windows (settle may end after the early one).
        quiet: {
          document: 'dynamic',
          dynamicBecause: 'it has scripts',
          settleWindowMs: 500,
          afterActionWindowMs: 300,
          earlySettle: rec.captureSettings.quiet.earlySettle,
        },
      },
    );
    assert.equal(rec.captureSettings.selectorWait.found, true);
    // The default behaviors, and what each did, are recorded.
    assert.deepEqual(rec.captureSettings.behaviors.requested, [
      'auto-scroll',
      'auto-fetch',
      'auto-play',
      'expand',
      'feed-timeline',
    ]);
    assert.deepEqual(
      rec.captureSettings.behaviors.ran.map((r: { name: string }) => r.name),
      ['auto-scroll', 'expand', 'auto-play', 'auto-fetch'],
    );
    // What each found beside what it cost, and consent detection's looks and wait (extensions beside spec 2.3).
    for (const run of rec.captureSettings.behaviors.ran) assert.equal(typeof run.found, 'boolean', run.name);
    assert.ok(rec.captureSettings.consentDetection.looks >= 1, JSON.stringify(rec.captureSettings.consentDetection));
    assert.equal(typeof rec.captureSettings.consentDetection.waitedMs, 'number');
    const shot = await s.call('GET', new URL(rec.artifacts.screenshot).pathname);
    assert.equal(shot.raw.readUInt32BE(16), 1024);
    assert.equal(shot.raw.readUInt32BE(20), 700, 'viewport only');
    // An extension beside spec 4.8's artifact names: its own path, and none under /artifacts/.
    assert.match(rec.artifacts.pdf, new RegExp(`/v1/captures/${rec.id}/pdf$`));
    assert.equal((await s.call('GET', `/v1/captures/${rec.id}/artifacts/pdf`)).status, 404);
    const pdf = await s.call('GET', new URL(rec.artifacts.pdf).pathname);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.equal(pdf.raw.subarray(0, 5).toString('latin1'), '%PDF-');

    const wacz = await s.call('GET', new URL(rec.wacz.url).pathname);
    const files = unzipSync(new Uint8Array(wacz.raw));
    const datapackage = JSON.parse(new TextDecoder().decode(files['datapackage.json']!));
    assert.deepEqual(datapackage.captureLedger.captureSettings, rec.captureSettings);
    const pdfResource = datapackage.resources.find((r: { path: string }) => r.path === 'attachments/page.pdf');
    assert.equal(pdfResource.hash, sha256(pdf.raw), 'the served pdf is the one hashed into the bundle');
  });

  it('serves the provenance record as JSON and HTML; it is the signed provenance.json of the bundle plus the signature', async () => {
    const p = await s.call('GET', `/v1/captures/${rec.id}/provenance`);
    assert.equal(p.status, 200, p.text);
    assert.equal(p.body.captureId, rec.id);
    assert.equal(p.body.requestedUrl, site.url('/simple'));
    assert.equal(p.body.finalUrl, site.url('/simple'));
    assert.deepEqual(p.body.redirectChain, [{ url: site.url('/simple'), status: 200 }]);
    assert.equal(p.body.mainDocumentStatus, 200);
    assert.match(p.body.browser.version, /Chrom/);
    assert.match(p.body.browser.userAgent, /Mozilla/);
    assert.deepEqual(p.body.viewport, { width: 1024, height: 700, deviceScaleFactor: 1 });
    assert.deepEqual(p.body.captureSettings, rec.captureSettings);
    const connection = p.body.connections.find((c: { host: string }) => c.host === '127.0.0.1');
    assert.ok(connection, JSON.stringify(p.body.connections));
    assert.equal(connection.address, '127.0.0.1');
    assert.equal(connection.via, 'http');
    const shot = await s.call('GET', new URL(rec.artifacts.screenshot).pathname);
    assert.equal(p.body.artifacts.find((a: { name: string }) => a.name === 'screenshot').hash, sha256(shot.raw));
    assert.equal(p.body.signing.keyId, p.body.signature.keyId);
    assert.equal(p.body.signature.bundleHash, rec.wacz.bundleHash);
    assert.ok(p.body.signature.timestamp.genTime);

    const wacz = await s.call('GET', new URL(rec.wacz.url).pathname);
    const inBundle = JSON.parse(
      new TextDecoder().decode(unzipSync(new Uint8Array(wacz.raw))['provenance/provenance.json']!),
    );
    const { signature: _signature, ...served } = p.body;
    assert.deepEqual(served, inBundle);

    const html = await s.call('GET', `/v1/captures/${rec.id}/provenance`, { headers: { accept: 'text/html' } });
    assert.equal(html.status, 200);
    assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(html.text, /Provenance of capture/);
    assert.ok(html.text.includes(rec.wacz.bundleHash));
    const missing = await s.call('GET', '/v1/captures/cap_00000000000000000000000000000000/provenance');
    assert.equal(missing.status, 404);
    assertProblem(missing.body, 404);
  });

  it('the WACZ download answers Range requests and CORS', async () => {
    const path = new URL(rec.wacz.url).pathname;
    const whole = await s.call('GET', path, { headers: { origin: 'http://viewer.example' } });
    assert.equal(whole.headers.get('access-control-allow-origin'), '*');
    assert.equal(whole.headers.get('accept-ranges'), 'bytes');
    const part = await s.call('GET', path, { headers: { range: 'bytes=10-109' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 10-109/${rec.wacz.size}`);
    assert.ok(part.raw.equals(whole.raw.subarray(10, 110)));
    const tail = await s.call('GET', path, { headers: { range: 'bytes=-22' } });
    assert.equal(tail.status, 206);
    assert.ok(tail.raw.equals(whole.raw.subarray(whole.raw.length - 22)), 'suffix range: the zip end record');
    const beyond = await s.call('GET', path, { headers: { range: `bytes=${rec.wacz.size}-` } });
    assert.equal(beyond.status, 416);
    assert.equal(beyond.headers.get('content-range'), `bytes */${rec.wacz.size}`);
    const preflight = await s.call('OPTIONS', path, {
      headers: {
        origin: 'http://viewer.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'range',
      },
    });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Range/i);
  });

  it('the verify result says the timestamp is self-issued by the built-in local TSA', async () => {
    const v = await s.call('GET', `/v1/verify/${rec.id}`);
    assert.equal(v.body.verified, true, JSON.stringify(v.body.checks));
    assert.equal(v.body.signing.timestamp.selfIssued, true);
    assert.match(v.body.checks.find((c: { name: string }) => c.name === 'timestamp').detail, /self-issued/);
  });

  it('an error page is captured as what it is: its HTTP status is in the record', async () => {
    const notFound = await captureRecord({ url: site.url('/status/404') });
    assert.equal(notFound.render.mainDocumentStatus, 404);
    const p = await s.call('GET', `/v1/captures/${notFound.id}/provenance`);
    assert.equal(p.body.mainDocumentStatus, 404);
  });

  it('the verification page replays the archived page from the signed WACZ beside the passing checks (headless Chromium)', {
    timeout: 240_000,
  }, async () => {
    const chromium: LaunchedChromium = await launchChromium();
    try {
      const page = await chromium.browser.newPage();
      const origin = new URL(s.baseUrl).origin;
      const requested: string[] = [];
      page.on('request', (r) => void requested.push(r.url()));
      const problems: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(String(e)));
      const siteRequestsBefore = site.requests.length;
      await page.goto(`${origin}/v1/verify/${rec.id}`, { waitUntil: 'load' });
      await page
        .waitForFunction(() => /^(ok|bad)$/.test(document.getElementById('verdict')?.className ?? ''), {
          timeout: 20_000,
        })
        .catch((error: Error) => assert.fail(`${error.message}; page errors: ${JSON.stringify(problems)}`));
      const checks = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLElement>('#checks tbody tr')].map((tr) => [
          tr.dataset.check,
          tr.querySelectorAll('td')[1]?.textContent,
        ]),
      );
      assert.deepEqual(checks, [
        ['artifactHashes', 'pass'],
        ['bundleHash', 'pass'],
        ['signature', 'pass'],
        ['timestamp', 'pass'],
      ]);

      // The replayed page lives in a nested iframe served by the service worker: /replay/w/<coll>/<ts>mp_/<url>.
      // Installing the service worker and indexing the WACZ can take long on a busy machine: a generous limit.
      // If the first visit has not shown the page by half of it, the test reloads once, as a reader would
      // (the worker is installed by then); what each frame shows is reported if it still never appears.
      const started = Date.now();
      const deadline = started + 150_000;
      let reloaded = false;
      let text = '';
      while (Date.now() < deadline && !/script ran/.test(text)) {
        for (const frame of page.frames()) {
          if (!frame.url().includes(`mp_/${site.url('/simple')}`)) continue;
          text = (await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '')) || text;
        }
        if (/script ran/.test(text)) break;
        if (!reloaded && Date.now() - started > 75_000) {
          reloaded = true;
          await page.reload({ waitUntil: 'load' }).catch(() => undefined);
        }
        await sleep(250);
      }
      const frameTexts = async () =>
        JSON.stringify(
          await Promise.all(
            page
              .frames()
              .map(async (f) => [
                f.url(),
                (await f.evaluate(() => document.body?.innerText ?? '').catch(() => '?')).slice(0, 300),
              ]),
          ),
        );
      if (!/Hello from the fixture/.test(text)) {
        assert.fail(
          `replayed frame never showed the captured text (reloaded: ${reloaded}); frames: ${await frameTexts()}; page errors: ${JSON.stringify(problems)}`,
        );
      }
      assert.match(text, /script ran/, 'the archived script ran in the replay');
      // The service's two origins: the API's, and the replay origin its page frames the archived page from.
      const replayOrigin = new URL(
        await page.evaluate(() => (document.getElementById('replay') as HTMLIFrameElement).src),
      ).origin;
      assert.notEqual(replayOrigin, origin);
      const elsewhere = requested.filter(
        (url) => !url.startsWith(`${origin}/`) && !url.startsWith(`${replayOrigin}/`) && !/^(blob|data):/.test(url),
      );
      assert.deepEqual(elsewhere, [], 'nothing outside the service was requested');
      assert.equal(site.requests.length, siteRequestsBefore, 'the replay came from the bundle, not the live site');
    } finally {
      await chromium.close();
    }
  });
});
