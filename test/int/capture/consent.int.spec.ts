import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { capturePage } from '../../../src/capture/page-capture.js';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { startFixtureSite, type FixtureSite } from '../../support/fixture-site.js';

const T = { timeout: 20_000 };
/** /consent-late draws its banner 2 s after load; a look beside settle finds it, then the opt-out: about 7 s, 9 s on a busy host. */
const LATE = { timeout: 60_000 };

function pixel(buffer: Buffer, x: number, yFromBottom: number): number[] {
  const png = PNG.sync.read(buffer);
  const i = ((png.height - 1 - yFromBottom) * png.width + x) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
}

describe('consent banners (real Chromium, autoconsent)', () => {
  let site: FixtureSite;
  let chromium: LaunchedChromium;

  before(async () => {
    site = await startFixtureSite();
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await site?.close();
  });

  it('detects a OneTrust banner, screenshots it, opts out, and screenshots the page without it', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/consent'), { timeoutMs: 10_000 });

    assert.equal(result.consent?.attempted, true);
    assert.equal(result.consent?.cmp, 'Onetrust');
    assert.equal(result.consent?.result, 'opted-out');
    assert.equal(typeof result.render.stages.consentMs, 'number');

    assert.ok(result.screenshotBefore, 'screenshotBefore taken');
    // The banner (#222) sits at the bottom of the viewport; after opting out the page there is white.
    assert.deepEqual(pixel(result.screenshotBefore, 5, 5), [34, 34, 34]);
    assert.deepEqual(pixel(result.screenshot, 5, 5), [255, 255, 255]);

    assert.match(result.html, /data-consent="rejected"/, 'the reject button was the one clicked');
  });

  it('keeps autoconsent out of the page’s own JavaScript world', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/consent'), { timeoutMs: 10_000 });
    assert.equal(result.consent?.result, 'opted-out');
    // Written by the page's own click handler: autoconsent's globals were not visible to it.
    assert.match(result.html, /data-page-saw-autoconsent="false"/);
  });

  it('finds a Sourcepoint-style dialog in a cross-site (out-of-process) iframe and rejects there', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/iframe-consent'), { timeoutMs: 10_000 });

    assert.equal(result.consent?.cmp, 'Sourcepoint-frame');
    assert.equal(result.consent?.result, 'opted-out');
    assert.ok(result.screenshotBefore, 'screenshotBefore taken');
    // The frame (#222) covers the bottom 160 px of the viewport; after the choice the page removed it.
    assert.deepEqual(pixel(result.screenshotBefore, 5, 5), [34, 34, 34]);
    assert.deepEqual(pixel(result.screenshot, 5, 5), [255, 255, 255]);
    assert.match(result.html, /data-consent="rejected"/, 'the frame’s reject button was the one clicked');
    assert.equal(result.render.settleReason, 'idle', 'the frame handed to its own process does not hold settle open');
  });

  it('looks again beside settle for a banner drawn when the page kept loading after load', LATE, async () => {
    const result = await capturePage(chromium.browser, site.url('/consent-late'), { timeoutMs: 30_000 });
    assert.equal(result.consent?.cmp, 'Onetrust');
    assert.equal(result.consent?.result, 'opted-out');
    assert.deepEqual(pixel(result.screenshotBefore!, 5, 5), [34, 34, 34]);
    assert.deepEqual(pixel(result.screenshot, 5, 5), [255, 255, 255]);
    assert.match(result.html, /data-consent="rejected"/);
    assert.ok(result.consentDetection!.looks >= 2, 'found by a look after the one at load');
    assert.equal(typeof result.consentDetection!.lookedAgainFor, 'string', 'what made the look worth taking');
  });

  it('does not look again at a page that rendered, after load, nothing that could be a banner', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/spa'), { timeoutMs: 10_000 });
    assert.equal(result.consent?.result, 'not-found');
    assert.match(result.html, /Rendered after load/);
    const detection = result.consentDetection!;
    assert.equal(detection.looks, 1, JSON.stringify(detection));
    assert.ok(detection.lookedNotAgain >= 1, `active after its look, and checked: ${JSON.stringify(detection)}`);
  });

  it('answers that a page without a banner has none (how fast: make bench, capture-latency)', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/article'), { timeoutMs: 10_000 });
    assert.equal(result.consent?.result, 'not-found');
    assert.equal(result.screenshotBefore, undefined);
  });

  it('looks once at a scripted page that stays quiet after load: no look after it settled', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/scripted-tall'), { timeoutMs: 10_000 });
    assert.equal(result.consent?.result, 'not-found');
    assert.equal(result.quiet?.document, 'dynamic');
    assert.equal(result.consentDetection?.looks, 1, JSON.stringify(result.consentDetection));
  });

  it('skips consent handling when asked to', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/consent'), {
      timeoutMs: 10_000,
      handleConsent: false,
    });
    assert.equal(result.consent, undefined);
    assert.equal(result.screenshotBefore, undefined);
    assert.deepEqual(pixel(result.screenshot, 5, 5), [34, 34, 34], 'banner still visible');
  });
});
