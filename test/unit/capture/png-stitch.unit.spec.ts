import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { pngSize, stitchPngsVertically } from '../../../src/capture/png-stitch.js';

/** A noisy image so that the encoder picks every filter type, including for first rows. */
function image(
  width: number,
  height: number,
  seed: number,
  colorType: 2 | 6 = 6,
  filterType = -1,
): { png: Buffer; rgba: Buffer } {
  const png = new PNG({ width, height, colorType, inputColorType: 6, inputHasAlpha: true });
  let state = seed;
  for (let i = 0; i < png.data.length; i += 4) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    png.data[i] = state & 0xff;
    png.data[i + 1] = (i >> 6) & 0xff;
    png.data[i + 2] = (state >> 8) & 0x0f;
    png.data[i + 3] = 255;
  }
  const rgba = Buffer.from(png.data);
  return { png: PNG.sync.write(png, { colorType, inputColorType: 6, inputHasAlpha: true, filterType }), rgba };
}

describe('stitchPngsVertically', () => {
  it('stacks slices so every pixel of the result matches its slice', async () => {
    const slices = [image(37, 20, 1), image(37, 15, 2), image(37, 1, 3)];
    const stitched = await stitchPngsVertically(slices.map((s) => s.png));
    assert.deepEqual(pngSize(stitched), { width: 37, height: 36 });
    const decoded = PNG.sync.read(stitched);
    assert.ok(decoded.data.equals(Buffer.concat(slices.map((s) => s.rgba))));
  });

  it('takes the fast path for RGB slices like Chromium produces', async () => {
    const slices = [image(20, 10, 4, 2), image(20, 10, 5, 2)];
    const stitched = await stitchPngsVertically(slices.map((s) => s.png));
    assert.equal(stitched[25], 2, 'colour type kept (RGB)');
    assert.ok(PNG.sync.read(stitched).data.equals(Buffer.concat(slices.map((s) => s.rgba))));
  });

  for (const filterType of [0, 1, 2, 3, 4]) {
    it(`undoes filter type ${filterType} on the first row of each slice`, async () => {
      const slices = [image(9, 4, 8, 2, filterType), image(9, 4, 9, 2, filterType)];
      const stitched = await stitchPngsVertically(slices.map((s) => s.png));
      assert.ok(PNG.sync.read(stitched).data.equals(Buffer.concat(slices.map((s) => s.rgba))));
    });
  }

  it('re-encodes slices of different formats', async () => {
    const slices = [image(16, 8, 6, 2), image(16, 8, 7, 6)];
    const stitched = await stitchPngsVertically(slices.map((s) => s.png));
    assert.ok(PNG.sync.read(stitched).data.equals(Buffer.concat(slices.map((s) => s.rgba))));
  });

  it('refuses slices of different widths', async () => {
    await assert.rejects(stitchPngsVertically([image(10, 5, 1).png, image(11, 5, 1).png]), /width/);
  });
});
