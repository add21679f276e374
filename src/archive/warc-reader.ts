import { unzipSync } from 'fflate';
import { WARCParser } from 'warcio';
import { WARC_PATH } from './bundle-format.js';

/**
 * Reads back the response records of a bundle's archive/data.warc.gz (the warc-writer's output): each exchange's
 * target URL, HTTP status and the WARC-Payload-Digest the writer stated. The capture's own artifacts (resource
 * records under urn:capture-ledger:) are not responses and are not listed.
 */
export interface WarcResponse {
  url: string;
  status: number;
  payloadDigest: string;
}

/** The WACZ's WARC; an Error when the bundle has none. */
export function warcOfWacz(wacz: Uint8Array): Uint8Array {
  const warc = unzipSync(wacz, { filter: (file) => file.name === WARC_PATH })[WARC_PATH];
  if (!warc) throw new Error(`the bundle has no ${WARC_PATH}`);
  return warc;
}

export async function responseRecordsOfWarc(warcGz: Uint8Array): Promise<WarcResponse[]> {
  const out: WarcResponse[] = [];
  for await (const record of new WARCParser([warcGz])) {
    if (record.warcType !== 'response') continue;
    out.push({
      url: record.warcTargetURI ?? '',
      status: Number(record.httpHeaders?.statusCode ?? 0),
      payloadDigest: record.warcPayloadDigest ?? '',
    });
  }
  return out;
}
