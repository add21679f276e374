import { inflateSync } from 'node:zlib';
import { PNG } from 'pngjs';
import type { RgbaImage } from './pixel-diff.js';

/**
 * PNG → RGBA for the screenshots a diff compares. Chromium writes 8-bit RGB or RGBA, not interlaced: for those the
 * IDAT stream is inflated by zlib (native) and unfiltered here in one typed-array pass, several times faster than
 * pngjs on a 20,000 px page (`BENCH=diff`, docs/performance.md); anything else goes to pngjs.
 */
export function decodeScreenshotPng(bytes: Uint8Array): RgbaImage {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header = readHeader(buf);
  if (!header) return viaPngjs(buf);
  const { width, height, channels, idat } = header;
  const raw = inflateSync(idat);
  const stride = width * channels;
  if (raw.length < height * (stride + 1)) throw new Error('PNG image data is shorter than its header says');
  const out = new Uint8Array(width * height * 4);
  let prev = new Uint8Array(stride);
  let row = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const start = y * (stride + 1);
    unfilter(raw[start]!, raw.subarray(start + 1, start + 1 + stride), prev, row, channels);
    const o = y * width * 4;
    if (channels === 4) out.set(row, o);
    else
      for (let x = 0, i = 0, p = o; x < width; x++, i += 3, p += 4) {
        out[p] = row[i]!;
        out[p + 1] = row[i + 1]!;
        out[p + 2] = row[i + 2]!;
        out[p + 3] = 255;
      }
    [prev, row] = [row, prev];
  }
  return { width, height, data: out };
}

/** The PNG filters (RFC 2083 §6): `line` filtered with `type` against `prev`, unfiltered into `row`. */
function unfilter(type: number, line: Uint8Array, prev: Uint8Array, row: Uint8Array, bpp: number): void {
  const n = line.length;
  switch (type) {
    case 0:
      row.set(line);
      return;
    case 1:
      for (let i = 0; i < n; i++) row[i] = (line[i]! + (i >= bpp ? row[i - bpp]! : 0)) & 255;
      return;
    case 2:
      for (let i = 0; i < n; i++) row[i] = (line[i]! + prev[i]!) & 255;
      return;
    case 3:
      for (let i = 0; i < n; i++) row[i] = (line[i]! + (((i >= bpp ? row[i - bpp]! : 0) + prev[i]!) >> 1)) & 255;
      return;
    case 4:
      for (let i = 0; i < n; i++) {
        const a = i >= bpp ? row[i - bpp]! : 0;
        const b = prev[i]!;
        const c = i >= bpp ? prev[i - bpp]! : 0;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        row[i] = (line[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 255;
      }
      return;
    default:
      throw new Error(`PNG row with unknown filter type ${type}`);
  }
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Size, channels and the joined IDAT data of an 8-bit RGB/RGBA non-interlaced PNG; null for any other kind. */
function readHeader(buf: Buffer): { width: number; height: number; channels: 3 | 4; idat: Buffer } | null {
  if (buf.length < 33 || !buf.subarray(0, 8).equals(SIGNATURE) || buf.toString('latin1', 12, 16) !== 'IHDR')
    return null;
  const width = buf.readUInt32BE(16);
  const height = buf.readUInt32BE(20);
  const [depth, colour, , , interlace] = buf.subarray(24, 29);
  if (depth !== 8 || interlace !== 0 || (colour !== 2 && colour !== 6)) return null;
  const idats: Buffer[] = [];
  for (let off = 8; off + 8 <= buf.length; ) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    if (type === 'IDAT') idats.push(buf.subarray(off + 8, off + 8 + len));
    if (type === 'IEND') break;
    off += 12 + len;
  }
  return { width, height, channels: colour === 6 ? 4 : 3, idat: Buffer.concat(idats) };
}

function viaPngjs(buf: Buffer): RgbaImage {
  const png = PNG.sync.read(buf);
  return {
    width: png.width,
    height: png.height,
    data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.byteLength),
  };
}
