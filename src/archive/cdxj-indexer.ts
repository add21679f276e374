import { CDXIndexer } from 'warcio';
import { WARC_FILENAME } from './bundle-format.js';

/**
 * indexes/index.cdxj for archive/data.warc.gz, built by warcio's CDX indexer (SURT keys, offsets and
 * lengths of each gzip member), lines sorted bytewise as WACZ readers binary-search them.
 *
 * A 206 (a byte range a media player asked for) is left out of the index when the WARC also holds a whole
 * response for the same URL (the capture fetched the file whole): a reader that found the part
 * first would answer with it or with nothing. The WARC keeps every record; only the lookup skips the parts.
 */
export async function indexWarc(warcGz: Uint8Array): Promise<Uint8Array> {
  const indexer = new CDXIndexer({ format: 'cdxj' });
  const source = (async function* () {
    yield warcGz;
  })();
  const entries: Array<{ url: string; status: string; line: Buffer }> = [];
  for await (const entry of indexer.iterIndex([{ filename: WARC_FILENAME, reader: source }])) {
    entries.push({
      url: String(entry['url'] ?? ''),
      status: String(entry['status'] ?? ''),
      line: Buffer.from(indexer.serialize(entry), 'utf8'),
    });
  }
  const wholeUrls = new Set(entries.filter((e) => /^\d+$/.test(e.status) && e.status !== '206').map((e) => e.url));
  const lines = entries.filter((e) => e.status !== '206' || !wholeUrls.has(e.url)).map((e) => e.line);
  lines.sort(Buffer.compare);
  return new Uint8Array(Buffer.concat(lines));
}
