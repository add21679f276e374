// The provenance record of a capture of an HTTPS page: real Chromium behind the real egress proxy,
// an HTTPS fixture with a certificate made for the test, capture options applied, and the record — with the
// fixture's certificate as the proxy's TLS probe saw it — written into a WACZ that still verifies.
import assert from 'node:assert/strict';
import { randomBytes, X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import type { Browser } from 'puppeteer-core';
import { makeBundle } from '../../../src/archive/bundle.js';
import { localNotary } from '../../../src/archive/notary.js';
import { verifyBundle } from '../../../packages/verifier/src/index.js';
import type { ProvenanceRecord } from '../../../src/archive/provenance-record.js';
import { signingKeyFromSeed } from '../../../src/archive/signing-key.js';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { captureSettingsRecord } from '../../../src/capture/capture-settings-record.js';
import { capturePage } from '../../../src/capture/page-capture.js';
import { buildProvenanceRecord, hostsOf } from '../../../src/capture/provenance-builder.js';
import { resolveCaptureSettings } from '../../../src/domain/capture-options.js';
import { createAddressPolicy } from '../../../src/net/address-policy.js';
import { createConnectionLog, type ConnectionLog } from '../../../src/net/connection-log.js';
import { startEgressProxy, type EgressProxy } from '../../../src/net/egress-proxy.js';
import { HTTPS_FIXTURE_TEXT, startHttpsFixture, type HttpsFixture } from '../../support/https-fixture.js';

const T = { timeout: 60_000 };
const sameCert = (a: string, b: string) =>
  new X509Certificate(a).fingerprint256 === new X509Certificate(b).fingerprint256;

describe('provenance of an HTTPS capture (Chromium → egress proxy → TLS fixture)', () => {
  let site: HttpsFixture;
  let proxy: EgressProxy;
  let connections: ConnectionLog;
  let browser: Browser;
  let chromium: LaunchedChromium;

  before(async () => {
    site = await startHttpsFixture();
    connections = createConnectionLog();
    proxy = await startEgressProxy({ policy: createAddressPolicy({ allowCidrs: ['127.0.0.1/32'] }), connections });
    chromium = await launchChromium({
      chromiumPath: process.env['CHROMIUM_PATH'],
      proxyServer: proxy.url,
      extraArgs: [`--ignore-certificate-errors-spki-list=${site.spkiSha256}`],
    });
    browser = chromium.browser;
  });
  after(async () => {
    await chromium?.close();
    await proxy?.close();
    await site?.close();
  });

  it(
    'records redirect chain, connection, TLS protocol and the server certificate; the record is signed inside the WACZ',
    T,
    async () => {
      const startedAt = new Date();
      const settings = resolveCaptureSettings({
        viewport: { width: 800, height: 600 },
        fullPage: false,
        waitForSelector: '#late',
        delayMs: 200,
        pdf: true,
      });
      const result = await capturePage(browser, site.url('/moved'), {
        timeoutMs: 15_000,
        settings,
        handleConsent: false,
      });

      // Options took effect.
      assert.equal(result.renderQuality, 'full');
      assert.equal(result.selectorWait?.found, true);
      assert.equal(result.screenshot.readUInt32BE(16), 800, 'png width = viewport width');
      assert.equal(
        result.screenshot.readUInt32BE(20),
        600,
        'fullPage false: png height = viewport height, not the 3000 px page',
      );
      assert.ok(result.pdf && result.pdf.subarray(0, 5).toString('latin1') === '%PDF-', 'pdf artifact');
      assert.match(result.html, /late element/);

      const observed = await connections.observed(hostsOf(result), startedAt.getTime() - 1000);
      const tlsConnection = observed.find((c) => c.via === 'tunnel' && c.tls);
      assert.ok(tlsConnection, `a tunnel with TLS observed: ${JSON.stringify(observed)}`);
      assert.equal(tlsConnection.address, '127.0.0.1');
      assert.match(tlsConnection.tls!.protocol, /^TLSv1\.[23]$/);
      assert.ok(sameCert(tlsConnection.tls!.certificateChainPem[0]!, site.certPem), 'the fixture certificate, as PEM');

      const captureSettings = captureSettingsRecord(result);
      const provenance = buildProvenanceRecord({
        captureId: 'cap_provenance_test',
        requestedUrl: site.url('/moved'),
        submittedAt: startedAt.toISOString(),
        startedAt: startedAt.toISOString(),
        completedAt: new Date().toISOString(),
        result,
        captureSettings,
        connections: observed,
        artifacts: [{ name: 'screenshot', mediaType: 'image/png', bytes: result.screenshot }],
      });
      assert.deepEqual(
        provenance.redirectChain.map((h) => [new URL(h.url).pathname, h.status]),
        [
          ['/moved', 302],
          ['/page', 200],
        ],
      );
      assert.equal(provenance.finalUrl, site.url('/page'));
      assert.match(provenance.browser.version, /Chrom/);
      assert.deepEqual(provenance.viewport, { width: 800, height: 600, deviceScaleFactor: 1 });

      const key = signingKeyFromSeed(randomBytes(32).toString('base64'));
      const bundle = (await makeBundle(
        {
          captureId: provenance.captureId,
          url: site.url('/moved'),
          createdAt: provenance.submittedAt,
          completedAt: provenance.completedAt,
          page: result,
          captureSettings,
          provenance,
        },
        localNotary(key),
      ))!;
      const verified = await verifyBundle(bundle.bytes, {
        keys: [{ keyId: key.keyId, publicKey: key.publicKeyBase64 }],
        tsaCaCertsPem: [],
      });
      assert.deepEqual(
        verified.checks.map((c) => [c.name, c.status]),
        [
          ['artifactHashes', 'pass'],
          ['bundleHash', 'pass'],
          ['signature', 'pass'],
        ],
      );

      const files = unzipSync(bundle.bytes);
      const datapackage = JSON.parse(new TextDecoder().decode(files['datapackage.json']!));
      const listed = datapackage.resources.map((r: { path: string }) => r.path);
      for (const path of ['provenance/provenance.json', 'provenance/provenance.html', 'attachments/page.pdf'])
        assert.ok(listed.includes(path), `${path} is hashed in datapackage.json`);
      assert.deepEqual(
        datapackage.captureLedger.captureSettings,
        captureSettings,
        'capture settings are covered by the signature',
      );
      const inBundle = JSON.parse(new TextDecoder().decode(files['provenance/provenance.json']!)) as ProvenanceRecord;
      assert.equal(inBundle.signing?.keyId, key.keyId);
      const pem = inBundle.connections.find((c) => c.tls)?.tls?.certificateChainPem[0];
      assert.ok(pem && sameCert(pem, site.certPem), 'the certificate is in the signed provenance.json');
      assert.ok(
        bundle.provenanceJson &&
          Buffer.from(bundle.provenanceJson).equals(Buffer.from(files['provenance/provenance.json']!)),
      );
      const html = new TextDecoder().decode(files['provenance/provenance.html']!);
      assert.match(html, /BEGIN CERTIFICATE/);
      assert.match(html, /TLSv1\.[23]/);
      assert.ok(!/<script/i.test(html), 'the readable record runs no script');
      assert.ok(result.html.includes(HTTPS_FIXTURE_TEXT));
    },
  );

  it('a selector that never appears makes the capture partial and says why', T, async () => {
    const settings = resolveCaptureSettings({ waitForSelector: '#never-there' });
    const result = await capturePage(browser, site.url('/page'), { timeoutMs: 1500, settings, handleConsent: false });
    assert.equal(result.renderQuality, 'partial');
    assert.equal(result.selectorWait?.found, false);
    assert.match(result.selectorWait!.reason!, /no element matched '#never-there'/);
    assert.deepEqual(captureSettingsRecord(result)['selectorWait'], result.selectorWait);
    assert.equal(result.screenshot.readUInt32BE(16), 1280, 'default viewport');
  });

  it('deviceScaleFactor scales the screenshot, full page and viewport only', T, async () => {
    const viewportOnly = await capturePage(browser, site.url('/page'), {
      timeoutMs: 10_000,
      handleConsent: false,
      settings: resolveCaptureSettings({
        viewport: { width: 400, height: 300 },
        deviceScaleFactor: 2,
        fullPage: false,
      }),
    });
    assert.equal(viewportOnly.screenshot.readUInt32BE(16), 800);
    assert.equal(viewportOnly.screenshot.readUInt32BE(20), 600);
    const fullPage = await capturePage(browser, site.url('/page'), {
      timeoutMs: 10_000,
      handleConsent: false,
      settings: resolveCaptureSettings({ viewport: { width: 400, height: 300 }, deviceScaleFactor: 2 }),
    });
    assert.equal(fullPage.screenshot.readUInt32BE(16), 800);
    assert.ok(fullPage.screenshot.readUInt32BE(20) > 6000, 'the whole 3000+ px page at 2×');
  });
});
