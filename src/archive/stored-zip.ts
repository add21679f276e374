import { crc32 } from 'node:zlib';

/**
 * A zip archive whose members are all STORED (method 0, no compression), as a WACZ wants them: the WARC is gzip
 * already and readers seek into it. Each member's CRC-32 is node's zlib (native code); the members are copied once,
 * into the result. The members' time is `mtime` as a DOS date and time in UTC, so the same members and time give
 * the same bytes on any host. No ZIP64: every member, and the archive, under 4 GiB; at most 65,535 members.
 *
 * Layout (APPNOTE 4.3.6): each member's local header and bytes in the order given, then the central directory, then
 * the end of central directory record. Version 2.0 needed and made by (MS-DOS), no extra fields, no comments; the
 * UTF-8 flag (bit 11) on a name that is not ASCII.
 */
export function storedZip(members: Iterable<readonly [path: string, bytes: Uint8Array]>, mtime: Date): Buffer {
  const [time, date] = dosTimeAndDate(mtime);
  const entries: { name: Buffer; bytes: Uint8Array; crc: number; offset: number; utf8: boolean }[] = [];
  let offset = 0;
  let directorySize = 0;
  for (const [path, bytes] of members) {
    const name = Buffer.from(path, 'utf8');
    if (name.length > 0xffff) throw new RangeError(`zip member name longer than 65,535 bytes: ${path.slice(0, 80)}…`);
    if (bytes.byteLength > MAX_32)
      throw new RangeError(`zip member ${path} is 4 GiB or more; this writer has no ZIP64`);
    entries.push({ name, bytes, crc: crc32(bytes), offset, utf8: name.length !== path.length });
    offset += LOCAL_HEADER + name.length + bytes.byteLength;
    directorySize += CENTRAL_HEADER + name.length;
  }
  if (entries.length > 0xffff) throw new RangeError(`${entries.length} zip members; this writer takes at most 65,535`);
  if (offset + directorySize > MAX_32) throw new RangeError('the zip would be 4 GiB or more; this writer has no ZIP64');

  const out = Buffer.allocUnsafe(offset + directorySize + END_RECORD);
  let at = 0;
  for (const e of entries) {
    at = out.writeUInt32LE(0x04034b50, at);
    at = out.writeUInt16LE(VERSION, at);
    at = writeCommon(out, at, e, time, date);
    at = out.writeUInt16LE(0, at); // extra field length
    at += e.name.copy(out, at);
    out.set(e.bytes, at);
    at += e.bytes.byteLength;
  }
  const directoryOffset = at;
  for (const e of entries) {
    at = out.writeUInt32LE(0x02014b50, at);
    at = out.writeUInt16LE(VERSION, at); // made by: MS-DOS, 2.0
    at = out.writeUInt16LE(VERSION, at); // needed to extract
    at = writeCommon(out, at, e, time, date);
    at = out.writeUInt16LE(0, at); // extra field length
    at = out.writeUInt16LE(0, at); // comment length
    at = out.writeUInt16LE(0, at); // disk number start
    at = out.writeUInt16LE(0, at); // internal attributes
    at = out.writeUInt32LE(0, at); // external attributes
    at = out.writeUInt32LE(e.offset, at);
    at += e.name.copy(out, at);
  }
  at = out.writeUInt32LE(0x06054b50, at);
  at = out.writeUInt16LE(0, at); // this disk
  at = out.writeUInt16LE(0, at); // the disk where the central directory starts
  at = out.writeUInt16LE(entries.length, at);
  at = out.writeUInt16LE(entries.length, at);
  at = out.writeUInt32LE(directorySize, at);
  at = out.writeUInt32LE(directoryOffset, at);
  out.writeUInt16LE(0, at); // comment length
  return out;
}

const VERSION = 20;
const LOCAL_HEADER = 30;
const CENTRAL_HEADER = 46;
const END_RECORD = 22;
const MAX_32 = 0xffffffff;

/** The fields a local header and a central directory entry share, from the flags to the name's length. */
function writeCommon(
  out: Buffer,
  at: number,
  e: { name: Buffer; bytes: Uint8Array; crc: number; utf8: boolean },
  time: number,
  date: number,
): number {
  at = out.writeUInt16LE(e.utf8 ? 0x0800 : 0, at); // general purpose flags: bit 11, the name is UTF-8
  at = out.writeUInt16LE(0, at); // method: stored
  at = out.writeUInt16LE(time, at);
  at = out.writeUInt16LE(date, at);
  at = out.writeUInt32LE(e.crc, at);
  at = out.writeUInt32LE(e.bytes.byteLength, at); // compressed size
  at = out.writeUInt32LE(e.bytes.byteLength, at); // uncompressed size
  return out.writeUInt16LE(e.name.length, at);
}

/** A DOS time (two-second resolution) and date of `t` in UTC; DOS dates run from 1980 to 2107. */
export function dosTimeAndDate(t: Date): [time: number, date: number] {
  const year = t.getUTCFullYear();
  if (!Number.isFinite(year) || year < 1980 || year > 2107) {
    throw new RangeError(
      `a zip member's time must be within 1980–2107, not ${Number.isNaN(t.getTime()) ? 'an invalid date' : t.toISOString()}`,
    );
  }
  const time = (t.getUTCHours() << 11) | (t.getUTCMinutes() << 5) | (t.getUTCSeconds() >> 1);
  const date = ((year - 1980) << 9) | ((t.getUTCMonth() + 1) << 5) | t.getUTCDate();
  return [time, date];
}
