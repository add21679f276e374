import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodePng, diffImage, encodePng } from '../../../src/watch/diff-image.js';
import { diffPixels, type RgbaImage } from '../../../src/watch/pixel-diff.js';

function page(width: number, height: number, fill = 255): RgbaImage {
  const data = new Uint8Array(width * height * 4).fill(fill);
  return { width, height, data };
}

function paintBox(img: RgbaImage, x0: number, y0: number, w: number, h: number): void {
  for (let y = y0; y < y0 + h; y++)
    for (let x = x0; x < x0 + w; x++) {
      const p = (y * img.width + x) * 4;
      img.data[p] = 0;
      img.data[p + 1] = 0;
      img.data[p + 2] = 0;
    }
}

describe('pixel diff', () => {
  it('finds nothing between equal images', () => {
    const d = diffPixels(page(100, 600), page(100, 600));
    assert.equal(d.changedPixels, 0);
    assert.deepEqual(d.regions, []);
  });

  it('reports the changed pixels and one box per changed area', () => {
    const next = page(200, 800);
    paintBox(next, 20, 30, 40, 10);
    paintBox(next, 100, 500, 16, 16);
    const d = diffPixels(page(200, 800), next);
    assert.equal(d.changedPixels, 40 * 10 + 16 * 16);
    assert.equal(d.regionCount, 2);
    const [first, second] = d.regions;
    assert.ok(first!.x <= 20 && first!.y <= 30 && first!.x + first!.width >= 60 && first!.y + first!.height >= 40);
    assert.ok(second!.y <= 500 && second!.y + second!.height >= 516);
  });

  it('leaves out ignored boxes', () => {
    const next = page(100, 100);
    paintBox(next, 10, 10, 20, 20);
    const d = diffPixels(page(100, 100), next, { ignoreBoxes: [{ x: 0, y: 0, width: 50, height: 50 }] });
    assert.equal(d.changedPixels, 0);
  });

  it('compares the common height and counts the extra height as changed', () => {
    const d = diffPixels(page(100, 300), page(100, 500));
    assert.equal(d.compared.height, 300);
    assert.equal(d.changedPixels, 100 * 200);
    assert.equal(d.changedRatio, 200 / 500);
    assert.deepEqual(d.regions, [{ x: 0, y: 300, width: 100, height: 200 }]);
  });

  it('draws the diff over the newer screenshot as a PNG of its size', () => {
    const next = page(64, 64);
    paintBox(next, 8, 8, 8, 8);
    const png = encodePng(diffImage(page(64, 64), next));
    const back = decodePng(png);
    assert.equal(back.width, 64);
    const red = (x: number, y: number) => Array.from(back.data.subarray((y * 64 + x) * 4, (y * 64 + x) * 4 + 3));
    assert.deepEqual(red(10, 10), [230, 0, 0]);
    assert.notDeepEqual(red(40, 40), [230, 0, 0]);
  });
});
