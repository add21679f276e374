import { CDXIndexer } from 'warcio';
import { WARC_FILENAME } from './bundle-format.js';
import type { WrittenWarc } from './warc-writer.js';

/**
 * indexes/index.cdxj for archive/data.warc.gz, built by warcio's CDX indexer (SURT keys, offsets and
 * lengths of each gzip member), lines sorted bytewise as WACZ readers binary-search them.
 *
 * A 206 (a byte range a media player asked for) is left out of the index when the WARC also holds a whole
 * response for the same URL (the capture fetched the file whole): a reader that found the part
 * first would answer with it or with nothing. The WARC keeps every record; only the lookup skips the parts.
 */
export async function indexWarc(warcGz: Uint8Array): Promise<Uint8Array> {
  return indexLines(await indexEntries(warcGz, (entry) => entry));
}

/**
 * The same index of a WARC just written (warc-writer.ts), without inflating it again: the indexer reads the
 * records as serialized, and each entry's offset and length are moved to its record's gzip member. Any entry
 * whose record cannot be told falls back to reading the WARC itself.
 */
export async function indexWrittenWarc(written: WrittenWarc): Promise<Uint8Array> {
  const byRawOffset = new Map<number, { gzOffset: number; gzLength: number }>();
  let rawOffset = 0;
  for (const record of written.records) {
    byRawOffset.set(rawOffset, record);
    rawOffset += record.raw.byteLength;
  }
  let unknown = false;
  const entries = await indexEntries(
    written.records.flatMap((r) => recordParts(r.raw)),
    (entry) => {
      const member = byRawOffset.get(Number(entry['offset']));
      if (!member) unknown = true;
      else {
        entry['offset'] = member.gzOffset;
        entry['length'] = member.gzLength;
      }
      return entry;
    },
  );
  return unknown ? indexWarc(written.bytes) : indexLines(entries);
}

/** How far into a record's block its HTTP header block is looked for. */
const HTTP_HEADERS_WITHIN = 64 * 1024;
const BLANK_LINE = Buffer.from('\r\n\r\n');

/**
 * A serialized record as the reader's chunks: its WARC header block, its HTTP header block (if it ends within
 * HTTP_HEADERS_WITHIN), the rest of its block, and the closing blank line, each a view of the record's bytes.
 * warcio's reader copies the unread rest of a chunk each time it takes a header line or a header block off its
 * front, and the rest of the block when the closing bytes share its chunk: fed a large screenshot's record as
 * one chunk, it copied those megabytes several times. Any cut reads the same: these only keep the copies small.
 */
function recordParts(raw: Uint8Array): Uint8Array[] {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const end = bytes.byteLength - BLANK_LINE.byteLength;
  const warcHead = bytes.indexOf(BLANK_LINE);
  if (warcHead < 0 || warcHead + BLANK_LINE.byteLength > end) return [raw];
  const cuts = [warcHead + BLANK_LINE.byteLength];
  const httpHead = bytes.subarray(0, Math.min(end, cuts[0]! + HTTP_HEADERS_WITHIN)).indexOf(BLANK_LINE, cuts[0]);
  if (httpHead >= 0) cuts.push(httpHead + BLANK_LINE.byteLength);
  cuts.push(end);
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.byteLength]) {
    if (cut > from) parts.push(raw.subarray(from, cut));
    from = Math.max(from, cut);
  }
  return parts;
}

type Entry = { url: string; status: string; line: Buffer };

async function indexEntries(
  source: Uint8Array | Uint8Array[],
  place: (entry: Record<string, unknown>) => Record<string, unknown>,
): Promise<Entry[]> {
  const indexer = new CDXIndexer({ format: 'cdxj' });
  const chunks = Array.isArray(source) ? source : [source];
  const reader = (async function* () {
    yield* chunks;
  })();
  const entries: Entry[] = [];
  for await (const found of indexer.iterIndex([{ filename: WARC_FILENAME, reader }])) {
    const entry = place(found);
    entries.push({
      url: String(entry['url'] ?? ''),
      status: String(entry['status'] ?? ''),
      line: Buffer.from(indexer.serialize(entry), 'utf8'),
    });
  }
  return entries;
}

function indexLines(entries: Entry[]): Uint8Array {
  const wholeUrls = new Set(entries.filter((e) => /^\d+$/.test(e.status) && e.status !== '206').map((e) => e.url));
  const lines = entries.filter((e) => e.status !== '206' || !wholeUrls.has(e.url)).map((e) => e.line);
  lines.sort(Buffer.compare);
  return new Uint8Array(Buffer.concat(lines));
}
