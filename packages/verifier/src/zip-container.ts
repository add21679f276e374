/**
 * The ZIP container of a bundle read strictly, as the service writes it (fflate, no data descriptors): members
 * back to back from byte 0, the central directory right after them, the end-of-archive record ending the file.
 * A reader takes a member's name, sizes and CRC from the central directory and its bytes from the local header,
 * so a container whose two copies disagree, or that carries bytes nobody reads, shows different files to
 * different tools though every member hashes right. Returns what is wrong (empty when nothing is). ZIP64
 * archives (over 4 GiB or 65,535 members) are beyond what the service writes and are not inspected here.
 */
export function zipContainerProblems(bytes: Uint8Array, files: ReadonlyMap<string, Uint8Array>): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16 = (at: number) => view.getUint16(at, true);
  const u32 = (at: number) => view.getUint32(at, true);
  const eocd = findEndRecord(bytes, view);
  if (eocd < 0) return ['the end-of-archive record is missing'];
  const problems: string[] = [];
  const commentEnd = eocd + 22 + u16(eocd + 20);
  if (commentEnd !== bytes.length)
    problems.push(
      `the end-of-archive record (with its ${u16(eocd + 20)}-byte comment) ends at byte ${commentEnd} of ${bytes.length}: the file holds bytes no ZIP reader reads, or the comment length is wrong`,
    );
  const count = u16(eocd + 10);
  const cdSize = u32(eocd + 12);
  const cdOffset = u32(eocd + 16);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) return problems;
  if (cdOffset + cdSize !== eocd)
    problems.push('the central directory does not end where the end-of-archive record begins');
  const decoder = new TextDecoder();
  let central = cdOffset;
  let expectedLocal = 0;
  for (let i = 0; i < count; i++) {
    if (central + 46 > eocd || u32(central) !== 0x02014b50) {
      problems.push(`central-directory entry ${i} is not where the directory says`);
      break;
    }
    const nameLength = u16(central + 28);
    const name = bytes.subarray(central + 46, central + 46 + nameLength);
    const label = decoder.decode(name);
    const [flags, method, crc, compressed, size] = [
      u16(central + 8),
      u16(central + 10),
      u32(central + 16),
      u32(central + 20),
      u32(central + 24),
    ];
    const local = u32(central + 42);
    if (local !== expectedLocal)
      problems.push(`${label}: its local header is at byte ${local}, the previous member ends at ${expectedLocal}`);
    if (local + 30 > bytes.length || u32(local) !== 0x04034b50) {
      problems.push(`${label}: no local header at byte ${local}`);
      break;
    }
    const localName = bytes.subarray(local + 30, local + 30 + u16(local + 26));
    if (!sameBytes(name, localName))
      problems.push(`${label}: the local header names it ${JSON.stringify(decoder.decode(localName))}`);
    if ((flags | u16(local + 6)) & 0x8)
      problems.push(`${label}: uses a data descriptor, which the service never writes`);
    else if (
      u16(local + 8) !== method ||
      u32(local + 14) !== crc ||
      u32(local + 18) !== compressed ||
      u32(local + 22) !== size
    )
      problems.push(`${label}: the central directory and the local header disagree on its method, CRC-32 or sizes`);
    const data = files.get(label);
    if (data && crc32(data) !== crc) problems.push(`${label}: its CRC-32 is not the one recorded`);
    expectedLocal = local + 30 + localName.length + u16(local + 28) + compressed;
    central += 46 + nameLength + u16(central + 30) + u16(central + 32);
  }
  if (problems.length === 0 && expectedLocal !== cdOffset)
    problems.push(`the members end at byte ${expectedLocal}, the central directory begins at ${cdOffset}`);
  return problems;
}

/** The last end-of-archive signature within the 64 KiB a comment may take. */
function findEndRecord(bytes: Uint8Array, view: DataView): number {
  for (let at = bytes.length - 22; at >= 0 && at >= bytes.length - 22 - 0xffff - 1; at--) {
    if (view.getUint32(at, true) === 0x06054b50) return at;
  }
  return -1;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

let table: Uint32Array | null = null;
export function crc32(data: Uint8Array): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = (table[(crc ^ data[i]!) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
