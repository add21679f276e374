/**
 * C2SP tlog-tiles coordinates (https://c2sp.org/tlog-tiles): tile height 8, so a full tile holds 256 hashes.
 * The tile at level L, index N lists the tree's level-8·L hashes N·256 … N·256+W−1; `tile/entries/N` bundles
 * leaves N·256 … as big-endian uint16 length-prefixed entries. Paths below the log's prefix:
 *   tile/<L>/<N>[.p/<W>]      tile/entries/<N>[.p/<W>]
 * N is written in groups of three digits, every group but the last prefixed with `x` (1234067 → x001/x234/067).
 */

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 1 << TILE_HEIGHT;
/** An entry of an entries bundle is at most this long (uint16 length prefix). */
export const MAX_ENTRY_BYTES = 0xffff;

export interface TileRef {
  /** Tile level, or 'entries' for an entries bundle. */
  level: number | 'entries';
  index: number;
  /** Hashes (or entries) in the tile: 256 for a full tile, fewer for a partial one. */
  width: number;
}

export function encodeTileIndex(n: number): string {
  const digits = String(n);
  const groups: string[] = [];
  for (let end = digits.length; end > 0; end -= 3)
    groups.unshift(digits.slice(Math.max(0, end - 3), end).padStart(3, '0'));
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join('/');
}

export function tilePath(t: TileRef): string {
  const base = `tile/${t.level}/${encodeTileIndex(t.index)}`;
  return t.width === TILE_WIDTH ? base : `${base}.p/${t.width}`;
}

/**
 * Parses the path after `tile/`; null when it is not a well-formed tile path (leading zeros in L, a group
 * that is not three digits, a width outside 1…255).
 */
export function parseTilePath(rest: string): TileRef | null {
  const parts = rest.split('/');
  const levelText = parts.shift();
  if (levelText === undefined) return null;
  let level: number | 'entries';
  if (levelText === 'entries') level = 'entries';
  else if (/^(0|[1-9]\d?)$/.test(levelText) && Number(levelText) <= 63) level = Number(levelText);
  else return null;
  let width = TILE_WIDTH;
  // A partial tile ends in `<NNN>.p/<W>`.
  if (parts.length >= 2 && parts[parts.length - 2]!.endsWith('.p')) {
    const w = parts.pop()!;
    if (!/^[1-9]\d{0,2}$/.test(w) || Number(w) >= TILE_WIDTH) return null;
    width = Number(w);
    parts[parts.length - 1] = parts[parts.length - 1]!.slice(0, -2);
  }
  if (parts.length === 0) return null;
  let digits = '';
  for (const [i, part] of parts.entries()) {
    const last = i === parts.length - 1;
    const match = (last ? /^(\d{3})$/ : /^x(\d{3})$/).exec(part);
    if (!match) return null;
    digits += match[1];
  }
  const index = Number(digits);
  if (!Number.isSafeInteger(index) || encodeTileIndex(index) !== parts.join('/')) return null; // one spelling per index
  return { level, index, width };
}

/** An entries bundle: each entry as a big-endian uint16 length and its bytes. */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Uint8Array {
  const total = entries.reduce((sum, e) => sum + 2 + e.byteLength, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const e of entries) {
    if (e.byteLength > MAX_ENTRY_BYTES)
      throw new RangeError(`log entry of ${e.byteLength} bytes exceeds ${MAX_ENTRY_BYTES}`);
    out[at] = e.byteLength >> 8;
    out[at + 1] = e.byteLength & 0xff;
    out.set(e, at + 2);
    at += 2 + e.byteLength;
  }
  return out;
}

export function decodeEntryBundle(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.byteLength) {
    if (at + 2 > bytes.byteLength) throw new Error('entries bundle ends inside a length prefix');
    const len = (bytes[at]! << 8) | bytes[at + 1]!;
    if (at + 2 + len > bytes.byteLength) throw new Error('entries bundle ends inside an entry');
    out.push(bytes.subarray(at + 2, at + 2 + len));
    at += 2 + len;
  }
  return out;
}

/** The tiles of `level` (a tile level) a client fetches for a tree of `size` leaves: full ones and the partial last one. */
export function tilesForSize(level: number, size: number): TileRef[] {
  const hashes = Math.floor(size / TILE_WIDTH ** level); // hashes at tree level 8·level
  const out: TileRef[] = [];
  for (let n = 0; n * TILE_WIDTH < hashes; n++)
    out.push({ level, index: n, width: Math.min(TILE_WIDTH, hashes - n * TILE_WIDTH) });
  return out;
}
