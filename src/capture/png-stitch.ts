/**
 * Stacks PNG slices of equal width into one PNG. Pages taller than Chromium's maximum texture size
 * (16384 px) are captured in slices; this joins them without holding the whole image in memory: one
 * slice at a time is fed to a single deflate stream.
 *
 * Fast path (what Chromium produces: same 8-bit colour type, no palette, no interlace): the slices'
 * filtered scanlines are reused as they are. Only the first row of each slice is unfiltered, because
 * its filter refers to an all-zero row above, which after stacking would be the previous slice's last row.
 * Anything else is decoded with pngjs and re-encoded as RGBA.
 */
import { PNG } from 'pngjs';
import { createDeflate, crc32, inflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const IDAT_CHUNK_BYTES = 1 << 20;
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 }; // grey, RGB, grey+alpha, RGBA

interface PngParts {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
  idat: Buffer[];
}

/** Width and height from a PNG's IHDR, without decoding it. */
export function pngSize(png: Buffer): { width: number; height: number } {
  const { width, height } = readHeader(png);
  return { width, height };
}

export async function stitchPngsVertically(slices: Buffer[]): Promise<Buffer> {
  if (slices.length === 0) throw new Error('nothing to stitch');
  if (slices.length === 1) return slices[0]!;
  const parts = slices.map(readParts);
  const first = parts[0]!;
  if (parts.some((p) => p.width !== first.width)) throw new Error('slices differ in width');
  const height = parts.reduce((sum, p) => sum + p.height, 0);

  const sameFormat = parts.every(
    (p) => p.bitDepth === first.bitDepth && p.colorType === first.colorType && p.interlace === first.interlace,
  );
  const channels = CHANNELS[first.colorType];
  if (sameFormat && first.bitDepth === 8 && first.interlace === 0 && channels !== undefined) {
    return encode(first.width, height, first.colorType, parts, (part) => {
      const rows = inflateSync(Buffer.concat(part.idat));
      unfilterFirstRow(rows, part.width * channels + 1, channels);
      return rows;
    });
  }
  // Decoded by pngjs to 8-bit RGBA; stored unfiltered (filter byte 0 before each row).
  return encode(first.width, height, 6, slices, (slice) => {
    const image = PNG.sync.read(slice);
    const stride = image.width * 4;
    const rows = Buffer.alloc(image.height * (stride + 1));
    for (let y = 0; y < image.height; y++) image.data.copy(rows, y * (stride + 1) + 1, y * stride, (y + 1) * stride);
    return rows;
  });
}

async function encode<T>(
  width: number,
  height: number,
  colorType: number,
  inputs: T[],
  scanlines: (input: T) => Buffer,
): Promise<Buffer> {
  const deflate = createDeflate({ level: 6 });
  const compressed: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => compressed.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    deflate.once('end', resolve);
    deflate.once('error', reject);
  });
  for (const input of inputs) {
    if (!deflate.write(scanlines(input))) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await ended;

  const idat = Buffer.concat(compressed);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, colorType, 0, 0, 0], 8); // 8-bit, deflate, adaptive filtering, no interlace
  const chunks = [SIGNATURE, chunk('IHDR', header)];
  for (let offset = 0; offset < idat.length; offset += IDAT_CHUNK_BYTES) {
    chunks.push(chunk('IDAT', idat.subarray(offset, offset + IDAT_CHUNK_BYTES)));
  }
  chunks.push(chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(chunks);
}

/**
 * Rewrites the first scanline as filter type 0. With an all-zero row above, Up is a no-op, Paeth reduces
 * to Sub, and Average to half the left byte.
 */
function unfilterFirstRow(rows: Buffer, rowBytes: number, bpp: number): void {
  const filter = rows[0];
  for (let i = 1; i < rowBytes; i++) {
    const left = i - 1 >= bpp ? rows[i - bpp]! : 0;
    if (filter === 1 || filter === 4) rows[i] = (rows[i]! + left) & 0xff;
    else if (filter === 3) rows[i] = (rows[i]! + (left >> 1)) & 0xff;
  }
  rows[0] = 0;
}

function readHeader(png: Buffer): Omit<PngParts, 'idat'> {
  if (png.length < 33 || !png.subarray(0, 8).equals(SIGNATURE) || png.toString('latin1', 12, 16) !== 'IHDR') {
    throw new Error('not a PNG');
  }
  return {
    width: png.readUInt32BE(16),
    height: png.readUInt32BE(20),
    bitDepth: png[24]!,
    colorType: png[25]!,
    interlace: png[28]!,
  };
}

function readParts(png: Buffer): PngParts {
  const parts: PngParts = { ...readHeader(png), idat: [] };
  for (let offset = 8; offset + 8 <= png.length; ) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    if (type === 'IDAT') parts.idat.push(png.subarray(offset + 8, offset + 8 + length));
    if (type === 'IEND') break;
    offset += 12 + length;
  }
  return parts;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData) >>> 0);
  return Buffer.concat([length, typeAndData, crc]);
}
