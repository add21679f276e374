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
 * options.recordBoxes: the boxes of the selectors' elements, measured right before the screenshot, in
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

/** options.recordTextBoxes: the boxes of a pattern's matches in the visible text, where the text is drawn. */
const CLOCK = `<!doctype html><html><head><style>
body{margin:0;height:2000px;background:#fff;color:#000;font:20px monospace}
p{position:absolute;margin:0}
</style></head><body>
<p style="left:100px;top:100px">Static text</p>
<p id="clock" style="left:100px;top:1200px;font-size:40px">Updated 10:42:07</p>
<p style="left:100px;top:1500px;visibility:hidden">Updated 1:2:3</p>
<p style="left:100px;top:1600px;display:none">Updated 4:5:6</p>
<script>
  // Updated 9:9:9 (script text is not drawn)
  // A page that would have every text box cover the whole page.
  Range.prototype.getClientRects = () => [new DOMRect(0, 0, 100000, 100000)];
</script></body></html>`;

describe('element boxes (real Chromium)', () => {
  let server: Server;
  let chromium: LaunchedChromium;
  let url: string;

  before(async () => {
    server = createServer((req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(req.url === '/clock' ? CLOCK : PAGE),
    );
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

  it(
    'records the boxes of each recordTextBoxes pattern’s matches in the visible text, where it is drawn',
    T,
    async () => {
      const pattern = 'Updated \\d+:\\d+:\\d+';
      const result = await capturePage(chromium.browser, `${url}clock`, {
        timeoutMs: 20_000,
        handleConsent: false,
        settings: {
          ...DEFAULT_CAPTURE_SETTINGS,
          deviceScaleFactor: 2,
          behaviors: [],
          recordTextBoxes: [pattern, 'nowhere'],
        },
      });
      const boxes = result.elementBoxes?.textBoxes?.[pattern];
      // Only the drawn clock: not the hidden ones, nor the script's text, nor the page's fake rects.
      assert.equal(boxes?.length, 1);
      assert.deepEqual(result.elementBoxes?.textBoxes?.['nowhere'], []);
      assert.deepEqual(result.elementBoxes?.boxes, {});
      const box = boxes[0]!;
      assert.ok(box.x >= 195 && box.x <= 200, `x ${box.x}`);
      assert.ok(box.y >= 2395 && box.y <= 2400, `y ${box.y}`);
      assert.ok(box.width > 400 && box.width < 1400 && box.height >= 80 && box.height < 140, JSON.stringify(box));
      // Every dark pixel below the static text is inside the box, and the box holds the clock's glyphs.
      const png = PNG.sync.read(result.screenshot);
      let inside = 0;
      for (let y = 400; y < png.height; y++)
        for (let x = 0; x < png.width; x++) {
          if (png.data[(y * png.width + x) * 4]! > 128) continue;
          const within = x >= box.x && x < box.x + box.width && y >= box.y && y < box.y + box.height;
          assert.ok(within, `a dark pixel at ${x},${y} outside ${JSON.stringify(box)}`);
          inside++;
        }
      assert.ok(inside > 1000, `${inside} dark pixels in the box`);
      const record = captureSettingsRecord(result);
      assert.deepEqual(record['recordTextBoxes'], [pattern, 'nowhere']);
      assert.equal('recordBoxes' in record, false);
      assert.deepEqual(record['elementBoxes'], result.elementBoxes);
    },
  );

  it('records nothing, and keeps captureSettings as it was, when no boxes were asked for', T, async () => {
    const result = await capturePage(chromium.browser, url, {
      timeoutMs: 20_000,
      handleConsent: false,
      settings: { ...DEFAULT_CAPTURE_SETTINGS, behaviors: [] },
    });
    assert.equal(result.elementBoxes, undefined);
    const record = captureSettingsRecord(result);
    assert.equal('recordBoxes' in record, false);
    assert.equal('recordTextBoxes' in record, false);
    assert.equal('elementBoxes' in record, false);
  });
});
