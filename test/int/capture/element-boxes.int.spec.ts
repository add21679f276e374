import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { captureSettingsRecord } from '../../../src/capture/capture-settings-record.js';
import { capturePage } from '../../../src/capture/page-capture.js';
import { DEFAULT_CAPTURE_SETTINGS } from '../../../src/domain/capture-options.js';

const T = { timeout: 60_000 };

/**
 * options.recordBoxes (issue 32): the boxes of the selectors' elements, measured right before the screenshot, in
 * screenshot pixels from its top-left — and not what the page's own scripts would have them be.
 */
const PAGE = `<!doctype html><html><head><style>
body{margin:0;height:3000px;background:#fff}
#target{position:absolute;left:40px;top:1500px;width:200px;height:100px;background:#f00}
.twice{position:absolute;left:0;width:10px;height:10px;background:#00f}
</style></head><body>
<div id="target"></div><div class="twice" style="top:10px"></div><div class="twice" style="top:50px"></div>
<div class="twice" style="display:none"></div>
<script>
  // A page that would have every box cover the whole page, so that a diff masks every change.
  Element.prototype.getBoundingClientRect = () => new DOMRect(0, 0, 100000, 100000);
  Document.prototype.querySelectorAll = function () { return []; };
</script></body></html>`;

describe('element boxes (real Chromium)', () => {
  let server: Server;
  let chromium: LaunchedChromium;
  let url: string;

  before(async () => {
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('records each matching element’s box in screenshot pixels, at the capture’s scale, in the record', T, async () => {
    const result = await capturePage(chromium.browser, url, {
      timeoutMs: 20_000,
      handleConsent: false,
      settings: {
        ...DEFAULT_CAPTURE_SETTINGS,
        deviceScaleFactor: 2,
        behaviors: [],
        recordBoxes: ['#target', '.twice', 'aside.none', 'p:contains(x)'],
      },
    });
    assert.deepEqual(result.elementBoxes, {
      boxes: {
        '#target': [{ x: 80, y: 3000, width: 400, height: 200 }],
        // The hidden third is not drawn: no box.
        '.twice': [
          { x: 0, y: 20, width: 20, height: 20 },
          { x: 0, y: 100, width: 20, height: 20 },
        ],
        'aside.none': [],
      },
      // css-select's :contains is not the browser's: nothing measured, so a diff says it was not recorded.
      unmeasured: ['p:contains(x)'],
    });
    // The box is where the element is on the screenshot.
    const png = PNG.sync.read(result.screenshot);
    assert.equal(png.width, 1280 * 2);
    const at = (x: number, y: number) => [...png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 3)];
    assert.deepEqual(at(80 + 5, 3000 + 5), [255, 0, 0]);
    assert.deepEqual(at(80 + 395, 3000 + 195), [255, 0, 0]);
    assert.deepEqual(at(80 + 405, 3000 + 5), [255, 255, 255]);
    // Kept in captureSettings, hence in the provenance record and the signed bundle.
    const record = captureSettingsRecord(result);
    assert.deepEqual(record['recordBoxes'], ['#target', '.twice', 'aside.none', 'p:contains(x)']);
    assert.deepEqual(record['elementBoxes'], result.elementBoxes);
  });

  it('records nothing, and keeps captureSettings as it was, when no boxes were asked for', T, async () => {
    const result = await capturePage(chromium.browser, url, {
      timeoutMs: 20_000,
      handleConsent: false,
      settings: { ...DEFAULT_CAPTURE_SETTINGS, behaviors: [] },
    });
    assert.equal(result.elementBoxes, undefined);
    const record = captureSettingsRecord(result);
    assert.equal('recordBoxes' in record, false);
    assert.equal('elementBoxes' in record, false);
  });
});
