import pixelmatch from 'pixelmatch';

/**
 * The screenshot part of a diff: two RGBA images compared with pixelmatch (YIQ colour distance, anti-aliasing
 * not counted), band by band so a 20,000 px page never needs a second full-size buffer. Changed pixels are
 * gathered on a grid of CELL px cells; touching cells make one region, reported as a box. Pages of different
 * sizes: the common top-left rectangle is compared and everything outside it counts as changed (one box each for
 * the extra height and the extra width), so a page that grew by a screen reports that screen.
 */

export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PixelDiffOptions {
  /** Areas not compared (in both images' coordinates). */
  ignoreBoxes?: readonly Box[];
  /** pixelmatch's threshold (0–1): the colour distance below which two pixels count as equal. */
  threshold?: number;
}

export interface PixelDiff {
  baseSize: { width: number; height: number };
  size: { width: number; height: number };
  /** The rectangle compared pixel by pixel; outside it is counted as changed. */
  compared: { width: number; height: number };
  changedPixels: number;
  totalPixels: number;
  /** changedPixels / totalPixels (the larger of the two pages): what a watch's minPixelChange is compared with. */
  changedRatio: number;
  /** Changed regions, top to bottom, at most MAX_REGIONS. */
  regions: Box[];
  regionCount: number;
}

export const CELL = 16;
export const MAX_REGIONS = 100;
const BAND_ROWS = 256;
const DEFAULT_THRESHOLD = 0.1;

/** `onChanged(x, y)`: each changed pixel of the compared rectangle, for whoever draws the diff image. */
export function diffPixels(
  base: RgbaImage,
  next: RgbaImage,
  options: PixelDiffOptions = {},
  onChanged?: (x: number, y: number) => void,
): PixelDiff {
  const width = Math.min(base.width, next.width);
  const height = Math.min(base.height, next.height);
  const fullWidth = Math.max(base.width, next.width);
  const fullHeight = Math.max(base.height, next.height);
  const ignore = options.ignoreBoxes ?? [];
  const threshold = options.threshold ?? DEFAULT_THRESHOLD;

  const cols = Math.ceil(width / CELL);
  const cells = new Uint8Array(cols * Math.ceil(height / CELL));
  const out = new Uint8Array(width * BAND_ROWS * 4);
  let changed = 0;

  for (let top = 0; top < height; top += BAND_ROWS) {
    const rows = Math.min(BAND_ROWS, height - top);
    const a = band(base, top, rows, width);
    const b = band(next, top, rows, width);
    const output = out.subarray(0, width * rows * 4);
    output.fill(0);
    if (pixelmatch(a, b, output, width, rows, { threshold, diffMask: true }) === 0) continue;
    for (let y = 0; y < rows; y++) {
      const row = y * width * 4;
      for (let x = 0; x < width; x++) {
        if (output[row + x * 4 + 3] === 0) continue;
        const py = top + y;
        if (ignore.length && inAny(ignore, x, py)) continue;
        changed++;
        cells[Math.floor(py / CELL) * cols + Math.floor(x / CELL)] = 1;
        onChanged?.(x, py);
      }
    }
  }

  const regions = regionsOf(cells, cols, width, height);
  if (fullHeight > height) regions.push({ x: 0, y: height, width: fullWidth, height: fullHeight - height });
  if (fullWidth > width) regions.push({ x: width, y: 0, width: fullWidth - width, height });
  const totalPixels = fullWidth * fullHeight;
  const outside = totalPixels - width * height;
  const changedPixels = changed + outside;
  return {
    baseSize: { width: base.width, height: base.height },
    size: { width: next.width, height: next.height },
    compared: { width, height },
    changedPixels,
    totalPixels,
    changedRatio: totalPixels === 0 ? 0 : changedPixels / totalPixels,
    regions: regions.slice(0, MAX_REGIONS),
    regionCount: regions.length,
  };
}

/** Rows [top, top+rows) of the image's left `width` columns, as a 4-byte-aligned view (a copy only when needed). */
function band(image: RgbaImage, top: number, rows: number, width: number): Uint8Array {
  const stride = image.width * 4;
  if (image.width === width) {
    const view = image.data.subarray(top * stride, (top + rows) * stride);
    if (view.byteOffset % 4 === 0) return view;
    return new Uint8Array(view);
  }
  const copy = new Uint8Array(width * rows * 4);
  for (let y = 0; y < rows; y++)
    copy.set(image.data.subarray((top + y) * stride, (top + y) * stride + width * 4), y * width * 4);
  return copy;
}

const inAny = (boxes: readonly Box[], x: number, y: number) =>
  boxes.some((b) => x >= b.x && x < b.x + b.width && y >= b.y && y < b.y + b.height);

/** Connected changed cells (8-neighbours) as boxes in pixels, clipped to the compared rectangle, top to bottom. */
function regionsOf(cells: Uint8Array, cols: number, width: number, height: number): Box[] {
  const rowsOfCells = cols === 0 ? 0 : cells.length / cols;
  const seen = new Uint8Array(cells.length);
  const boxes: Box[] = [];
  const stack: number[] = [];
  for (let start = 0; start < cells.length; start++) {
    if (!cells[start] || seen[start]) continue;
    let minC = cols;
    let maxC = -1;
    let minR = rowsOfCells;
    let maxR = -1;
    seen[start] = 1;
    stack.push(start);
    while (stack.length) {
      const i = stack.pop()!;
      const r = Math.floor(i / cols);
      const c = i - r * cols;
      minC = Math.min(minC, c);
      maxC = Math.max(maxC, c);
      minR = Math.min(minR, r);
      maxR = Math.max(maxR, r);
      for (let dr = -1; dr <= 1; dr++)
        for (let dc = -1; dc <= 1; dc++) {
          const nr = r + dr;
          const nc = c + dc;
          if (nr < 0 || nc < 0 || nr >= rowsOfCells || nc >= cols) continue;
          const j = nr * cols + nc;
          if (cells[j] && !seen[j]) {
            seen[j] = 1;
            stack.push(j);
          }
        }
    }
    const x = minC * CELL;
    const y = minR * CELL;
    boxes.push({
      x,
      y,
      width: Math.min(width, (maxC + 1) * CELL) - x,
      height: Math.min(height, (maxR + 1) * CELL) - y,
    });
  }
  return boxes;
}
