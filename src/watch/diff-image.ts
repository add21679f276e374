import { PNG } from 'pngjs';
import { decodeScreenshotPng } from './png-decode.js';
import { type Box, diffPixels, type PixelDiffOptions, type RgbaImage } from './pixel-diff.js';

/**
 * The diff image (GET /v1/captures/{id}/diff.png): the newer screenshot faded towards white, each changed pixel in
 * red and each changed region outlined in magenta, so what changed stands out over the page as it is now.
 */

const FADE = 0.65;
const OUTLINE = 3;
const RED = [230, 0, 0] as const;
const MAGENTA = [200, 0, 200] as const;

export function diffImage(base: RgbaImage, next: RgbaImage, options: PixelDiffOptions = {}): RgbaImage {
  const { width, height } = next;
  const data = new Uint8Array(next.data.length);
  for (let i = 0; i < data.length; i += 4) {
    data[i] = next.data[i]! + (255 - next.data[i]!) * FADE;
    data[i + 1] = next.data[i + 1]! + (255 - next.data[i + 1]!) * FADE;
    data[i + 2] = next.data[i + 2]! + (255 - next.data[i + 2]!) * FADE;
    data[i + 3] = 255;
  }
  const paint = (x: number, y: number, [r, g, b]: readonly [number, number, number]) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const p = (y * width + x) * 4;
    data[p] = r;
    data[p + 1] = g;
    data[p + 2] = b;
  };
  const diff = diffPixels(base, next, options, (x, y) => paint(x, y, RED));
  for (const box of diff.regions) outline(box, (x, y) => paint(x, y, MAGENTA));
  return { width, height, data };
}

function outline(box: Box, paint: (x: number, y: number) => void): void {
  for (let t = 0; t < OUTLINE; t++) {
    for (let x = box.x; x < box.x + box.width; x++) {
      paint(x, box.y + t);
      paint(x, box.y + box.height - 1 - t);
    }
    for (let y = box.y; y < box.y + box.height; y++) {
      paint(box.x + t, y);
      paint(box.x + box.width - 1 - t, y);
    }
  }
}

/** The screenshots' decoder (png-decode.ts). */
export const decodePng = decodeScreenshotPng;

export function encodePng(image: RgbaImage): Uint8Array {
  const png = new PNG({ width: image.width, height: image.height });
  png.data = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
  return new Uint8Array(PNG.sync.write(png, { deflateLevel: 3, filterType: 1 }));
}
