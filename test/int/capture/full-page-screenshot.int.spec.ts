import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { capturePage } from '../../../src/capture/page-capture.js';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { bandColor, startFixtureSite, TALL_BAND_PX, type FixtureSite } from '../../support/fixture-site.js';

const T = { timeout: 30_000 };

/** Checks a pixel near the right edge (away from the band labels) in the middle of each listed band. */
function assertBands(png: PNG, bands: number[]): void {
  for (const band of bands) {
    for (const y of [band * TALL_BAND_PX + 5, band * TALL_BAND_PX + TALL_BAND_PX / 2, (band + 1) * TALL_BAND_PX - 5]) {
      const i = (y * png.width + png.width - 20) * 4;
      assert.deepEqual([png.data[i], png.data[i + 1], png.data[i + 2]], [...bandColor(band)], `band ${band} at y=${y}`);
    }
  }
}

describe('full-page screenshots of tall pages (real Chromium)', () => {
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

  it('stitches a page taller than the 16384 px texture limit into one correct image', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/tall?h=20000'), {
      timeoutMs: 10_000,
      handleConsent: false,
    });
    const png = PNG.sync.read(result.screenshot);
    assert.equal(png.width, 1280);
    assert.equal(png.height, 20000);
    assertBands(png, [0, 1, 8, 15, 16, 17, 18, 19]);
    assert.deepEqual(result.notes, []);
  });

  it('cuts a 40000 px page at 30000 px, correct to the last row, and says so', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/tall?h=40000'), {
      timeoutMs: 10_000,
      handleConsent: false,
    });
    const png = PNG.sync.read(result.screenshot);
    assert.equal(png.width, 1280);
    assert.equal(png.height, 30000);
    assertBands(png, [0, 16, 24, 28, 29]);
    assert.ok(
      result.notes.some((n) => /cut at 30000 px of a 40000 px page/.test(n)),
      result.notes.join('; '),
    );
  });

  it('honours a lower height cap', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/tall?h=5000'), {
      timeoutMs: 10_000,
      handleConsent: false,
      maxScreenshotHeightPx: 3000,
    });
    const png = PNG.sync.read(result.screenshot);
    assert.equal(png.height, 3000);
    assertBands(png, [0, 1, 2]);
  });
});
