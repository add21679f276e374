import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { decodeScreenshotPng } from '../../../src/watch/png-decode.js';

/** A noisy picture with flat areas and gradients, so pngjs's adaptive filtering uses every filter type. */
function picture(width: number, height: number): PNG {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 4;
      png.data[p] = (x * 3 + y) & 255;
      png.data[p + 1] = y % 7 === 0 ? 200 : (x * y) & 255;
      png.data[p + 2] = x < width / 2 ? 30 : (x ^ y) & 255;
      png.data[p + 3] = 255;
    }
  return png;
}

describe('screenshot PNG decoding', () => {
  for (const [name, colorType, filterType] of [
    ['RGBA, adaptive filters', 6, -1],
    ['RGB, adaptive filters', 2, -1],
    ['RGBA, Paeth', 6, 4],
    ['RGB, Average', 2, 3],
    ['RGBA, Sub', 6, 1],
  ] as const) {
    it(`reads ${name} exactly as pngjs does`, () => {
      const bytes = PNG.sync.write(picture(97, 61), { colorType, filterType });
      const ours = decodeScreenshotPng(bytes);
      const theirs = PNG.sync.read(bytes);
      assert.equal(ours.width, 97);
      assert.equal(ours.height, 61);
      assert.ok(Buffer.from(ours.data).equals(theirs.data));
    });
  }

  it('hands other kinds (greyscale) to pngjs', () => {
    const bytes = PNG.sync.write(picture(10, 10), { colorType: 0 });
    assert.ok(Buffer.from(decodeScreenshotPng(bytes).data).equals(PNG.sync.read(bytes).data));
  });
});
