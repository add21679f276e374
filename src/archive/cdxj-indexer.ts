import { CDXIndexer } from 'warcio';
import { WARC_FILENAME } from './bundle-format.js';

/**
 * indexes/index.cdxj for archive/data.warc.gz, built by warcio's CDX indexer (SURT keys, offsets and
 * lengths of each gzip member), lines sorted bytewise as WACZ readers binary-search them.
 */
export async function indexWarc(warcGz: Uint8Array): Promise<Uint8Array> {
  const indexer = new CDXIndexer({ format: 'cdxj' });
  const source = (async function* () {
    yield warcGz;
  })();
  const lines: Buffer[] = [];
  for await (const entry of indexer.iterIndex([{ filename: WARC_FILENAME, reader: source }])) {
    lines.push(Buffer.from(indexer.serialize(entry), 'utf8'));
  }
  lines.sort(Buffer.compare);
  return new Uint8Array(Buffer.concat(lines));
}
