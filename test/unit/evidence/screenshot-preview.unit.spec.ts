import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { MAX_PREVIEW_BYTES, screenshotPreview } from '../../../src/evidence/screenshot-preview.js';

const png = (width: number, height: number, fill: (data: Buffer) => void) => {
  const image = new PNG({ width, height });
  fill(image.data);
  return PNG.sync.write(image);
};

describe('the certificate’s screenshot preview', () => {
  it('keeps a plain page at 640 px for a 1280 px screenshot, the top 1.2 widths of it', () => {
    const preview = screenshotPreview(png(1280, 4000, (d) => d.fill(255)))!;
    assert.deepEqual([preview.width, preview.height, preview.cropped], [640, 768, true]);
  });

  it('downscales a page of noise (no PNG compression helps) until it fits its byte budget', () => {
    const noisy = png(1280, 1536, (d) => randomBytes(d.length).copy(d));
    const preview = screenshotPreview(noisy)!;
    assert.ok(preview.png.length <= MAX_PREVIEW_BYTES, `${preview.png.length} bytes`);
    assert.ok(preview.width < 640 && preview.width >= 120, `${preview.width} px wide`);
  });

  it('is null for bytes that are not a PNG', () => {
    assert.equal(screenshotPreview(Buffer.from('not a png')), null);
  });
});
