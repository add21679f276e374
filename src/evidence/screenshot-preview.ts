import { PNG } from 'pngjs';

/**
 * The screenshot as page 1 of the certificate shows it: the top of the full-page PNG (at most 1.2 times as tall as
 * wide), downscaled to at most 900 pixels wide (coarser until it fits MAX_PREVIEW_BYTES) by averaging boxes, alpha
 * dropped onto white (PDF/A: no soft mask).
 * Deterministic, so the same screenshot gives the same certificate bytes. null when the bytes are not a PNG.
 */
const MAX_WIDTH = 900;
const MAX_ASPECT = 1.2;
/** The preview's largest PNG: with fonts and text (about 90 KB) a certificate stays near 300 KB at most. */
export const MAX_PREVIEW_BYTES = 192 * 1024;
/** Never coarser than this wide, whatever the bytes. */
const MIN_WIDTH = 120;

export interface ScreenshotPreview {
  png: Buffer;
  width: number;
  height: number;
  /** Only the top of the screenshot is shown. */
  cropped: boolean;
}

export function screenshotPreview(bytes: Uint8Array): ScreenshotPreview | null {
  let source: PNG;
  try {
    source = PNG.sync.read(Buffer.from(bytes));
  } catch {
    return null;
  }
  if (source.width === 0 || source.height === 0) return null;
  const shownHeight = Math.min(source.height, Math.round(source.width * MAX_ASPECT));
  // Coarser until the preview fits its byte budget: a photo-heavy page must not push the certificate past what
  // POST /v1/verify/certificate reads (MAX_CERTIFICATE_BYTES).
  for (let factor = Math.max(1, Math.ceil(source.width / MAX_WIDTH)); ; factor *= 2) {
    const { png, width, height } = downscale(source, shownHeight, factor);
    if (png.length <= MAX_PREVIEW_BYTES || width <= MIN_WIDTH)
      return { png, width, height, cropped: shownHeight < source.height };
  }
}

/** The top `shownHeight` rows of `source`, each `factor`×`factor` block averaged over white, as an opaque RGB PNG. */
function downscale(source: PNG, shownHeight: number, factor: number): { png: Buffer; width: number; height: number } {
  const width = Math.max(1, Math.floor(source.width / factor));
  const height = Math.max(1, Math.floor(shownHeight / factor));
  const out = new PNG({ width, height, colorType: 2, inputHasAlpha: true });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let dy = 0; dy < factor; dy++) {
        for (let dx = 0; dx < factor; dx++) {
          const at = ((y * factor + dy) * source.width + (x * factor + dx)) * 4;
          const alpha = (source.data[at + 3] ?? 255) / 255;
          r += (source.data[at] ?? 0) * alpha + 255 * (1 - alpha);
          g += (source.data[at + 1] ?? 0) * alpha + 255 * (1 - alpha);
          b += (source.data[at + 2] ?? 0) * alpha + 255 * (1 - alpha);
        }
      }
      const n = factor * factor;
      const to = (y * width + x) * 4;
      out.data[to] = Math.round(r / n);
      out.data[to + 1] = Math.round(g / n);
      out.data[to + 2] = Math.round(b / n);
      out.data[to + 3] = 255;
    }
  }
  return { png: PNG.sync.write(out, { colorType: 2, inputHasAlpha: true }), width, height };
}
