import { createHash } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { promisify } from 'node:util';
import { constants as zlibConstants, deflateRaw, gzip } from 'node:zlib';
import { HeadersMultiMap, StatusAndHeaders, WARCRecord, WARCSerializer, WARC_1_1 } from 'warcio';
import { ArchiveError } from './errors.js';
import type { NetworkExchange } from '../domain/network-exchange.js';
import { redactedValue } from '../domain/header-redaction.js';
import { ARTIFACTS, type ArtifactName } from '../domain/artifacts.js';
import type { FinishedCapture } from './finished-capture.js';
import { SOFTWARE, WARC_FILENAME } from './bundle-format.js';

/**
 * Writes archive/data.warc.gz: WARC/1.1, each record its own gzip member (so a CDXJ offset/length
 * addresses one record), in this order: warcinfo; per exchange a response then its request
 * (WARC-Concurrent-To links them); resource records for the screenshot(s), rendered HTML and headers JSON.
 * Cookie, Set-Cookie and Authorization values are redacted before the bundle is signed (the names stay):
 * the WACZ is public to anyone with the capture id.
 *
 * Each record is gzipped here, off the main thread. A payload that is already compressed (a PNG, a video, a font)
 * is deflated at the fastest level when a sample of it still shrinks, and otherwise stored in its gzip member as
 * it is (a screenshot encoded for speed often shrinks a tenth; one of gradients, 0.3 % for 160 ms of CPU). The
 * capture's own resource records carry their digests, taken with node's SHA-256 rather than warcio's WebAssembly one.
 */
const gzipped = promisify(gzip);
const deflatedRaw = promisify(deflateRaw);

/** Media types whose bytes are compressed already: deflating them again gains little or nothing. */
const COMPRESSED =
  /^(image\/(png|jpeg|gif|webp|avif|apng)|video\/|audio\/|font\/woff2?|application\/(zip|gzip|pdf|x-bzip2|octet-stream))/i;

/** The part of a compressed payload deflated to see whether deflating all of it gains anything. */
const SAMPLE_BYTES = 64 * 1024;
/** A sample that shrinks by less than this share is not worth deflating: the record is stored. */
const WORTH_DEFLATING = 0.02;

/** The gzip level of a serialized record: its payload's media type, and for a compressed one a sample from its middle. */
async function gzipLevel(raw: Uint8Array, mediaType: string | undefined): Promise<number> {
  if (!mediaType || !COMPRESSED.test(mediaType)) return zlibConstants.Z_DEFAULT_COMPRESSION;
  if (raw.byteLength <= 2 * SAMPLE_BYTES) return zlibConstants.Z_BEST_SPEED;
  const from = Math.floor((raw.byteLength - SAMPLE_BYTES) / 2);
  const deflated = await deflatedRaw(raw.subarray(from, from + SAMPLE_BYTES), { level: zlibConstants.Z_BEST_SPEED });
  return deflated.byteLength < SAMPLE_BYTES * (1 - WORTH_DEFLATING)
    ? zlibConstants.Z_BEST_SPEED
    : zlibConstants.Z_NO_COMPRESSION;
}

/**
 * A Buffer's bytes as a Uint8Array over the same memory. `new Uint8Array(buffer)` copies them: for a screenshot
 * that was a copy of megabytes before serializing (which copies once more, into the record) and one of the whole
 * WARC at the end. Nothing here writes into a payload after it is given.
 */
function bytesOf(bytes: Buffer): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Target URIs of the capture's own artifacts inside the WARC. */
export function artifactUri(captureId: string, name: string): string {
  return `urn:capture-ledger:${captureId}/${name}`;
}

/** The WARC as written: its bytes, and each record's serialized bytes and gzip member, in order. */
export interface WrittenWarc {
  bytes: Uint8Array;
  records: Array<{ raw: Uint8Array; gzOffset: number; gzLength: number }>;
}

export async function writeWarc(input: FinishedCapture): Promise<WrittenWarc> {
  for (const [field, value] of [
    ['createdAt', input.createdAt],
    ['completedAt', input.completedAt],
  ] as const) {
    if (Number.isNaN(Date.parse(value))) {
      throw new ArchiveError('BUNDLE_INPUT_INVALID', `${field} is not an ISO 8601 date: ${value}`);
    }
  }
  if (!/^https?:$/.test(safeUrl(input.url)?.protocol ?? '')) {
    throw new ArchiveError('BUNDLE_INPUT_INVALID', `url is not an absolute http(s) URL: ${input.url}`);
  }
  const records: Array<{ record: WARCRecord; mediaType?: string }> = [];

  records.push({
    record: WARCRecord.createWARCInfo(
      { filename: WARC_FILENAME, warcVersion: WARC_1_1, date: input.createdAt },
      {
        software: SOFTWARE,
        format: 'WARC File Format 1.1',
        conformsTo: 'https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/',
        isPartOf: input.captureId,
        description: `Capture ${input.captureId} of ${input.url}`,
      },
    ),
  });

  for (const recorded of input.page.exchanges) {
    // Only HTTP(S) exchanges are WARC request/response pairs (data:, blob: URLs have no wire form).
    if (!/^https?:$/.test(safeUrl(recorded.url)?.protocol ?? '')) continue;
    const exchange = Number.isNaN(Date.parse(recorded.startedAt))
      ? { ...recorded, startedAt: input.createdAt }
      : recorded;
    const response = responseRecord(exchange);
    records.push({ record: response, mediaType: headerValue(exchange.responseHeaders, 'content-type') });
    const responseId = response.warcHeaders.headers.get('WARC-Record-ID');
    records.push({ record: requestRecord(exchange, responseId ?? undefined) });
  }

  const { page } = input;
  records.push(artifactRecord(input, 'screenshot', page.screenshot));
  if (page.screenshotBefore) records.push(artifactRecord(input, 'screenshot-before', page.screenshotBefore));
  records.push(artifactRecord(input, 'html', Buffer.from(page.html, 'utf8')));
  if (page.headers !== null)
    records.push(artifactRecord(input, 'headers', Buffer.from(JSON.stringify(page.headers), 'utf8')));

  // Serialised in order on this thread (warcio), deflated side by side in the thread pool.
  const raws: Uint8Array[] = [];
  const members: Array<Promise<Buffer>> = [];
  for (const { record, mediaType } of records) {
    const raw = await WARCSerializer.serialize(record, { gzip: false });
    raws.push(raw);
    members.push(gzipLevel(raw, mediaType).then((level) => gzipped(raw, { level })));
  }
  const gz = await Promise.all(members);
  let gzOffset = 0;
  const written = raws.map((raw, i) => {
    const record = { raw, gzOffset, gzLength: gz[i]!.byteLength };
    gzOffset += record.gzLength;
    return record;
  });
  return { bytes: bytesOf(Buffer.concat(gz)), records: written };
}

function responseRecord(exchange: NetworkExchange): WARCRecord {
  const statusText = exchange.statusText || STATUS_CODES[exchange.status] || '';
  const statusline = `${httpVersion(exchange.httpVersion)} ${exchange.status} ${clean(statusText)}`.trimEnd();
  const record = WARCRecord.create(
    {
      url: exchange.url,
      date: exchange.startedAt,
      type: 'response',
      warcVersion: WARC_1_1,
      statusline,
      warcHeaders: {
        ...(exchange.remoteAddress ? { 'WARC-IP-Address': exchange.remoteAddress } : {}),
        // The body here is not what the browser received in full (network-exchange.ts says why).
        ...(exchange.truncated ? { 'WARC-Truncated': exchange.truncated } : {}),
      },
    },
    [bytesOf(exchange.body)],
  );
  record.httpHeaders = new StatusAndHeaders({ statusline, headers: new ExactHeaders(responseHeaders(exchange)) });
  return record;
}

function requestRecord(exchange: NetworkExchange, concurrentTo: string | undefined): WARCRecord {
  const target = new URL(exchange.url);
  const statusline = `${exchange.method.toUpperCase()} ${target.pathname}${target.search} ${httpVersion(exchange.httpVersion)}`;
  const headers = Object.entries(exchange.requestHeaders)
    .filter(([name]) => isHeaderName(name))
    .map(([name, value]): [string, string] => [name, clean(redactedValue(name, value))]);
  const record = WARCRecord.create(
    {
      url: exchange.url,
      date: exchange.startedAt,
      type: 'request',
      warcVersion: WARC_1_1,
      statusline,
      warcHeaders: concurrentTo ? { 'WARC-Concurrent-To': concurrentTo } : {},
    },
    exchange.requestBody ? [bytesOf(exchange.requestBody)] : [],
  );
  record.httpHeaders = new StatusAndHeaders({ statusline, headers: new ExactHeaders(headers) });
  return record;
}

/** A capture's own artifact as a WARC resource record, named as ARTIFACTS says. */
function artifactRecord(
  input: FinishedCapture,
  artifact: ArtifactName,
  body: Buffer,
): { record: WARCRecord; mediaType: string } {
  const { warcName, mediaType } = ARTIFACTS[artifact];
  if (!warcName) throw new Error(`artifact ${artifact} is not recorded in the WARC`);
  // A resource record's block is its payload: one digest is both.
  const digest = `sha256:${createHash('sha256').update(body).digest('hex')}`;
  const record = WARCRecord.create(
    {
      url: artifactUri(input.captureId, warcName),
      date: input.completedAt,
      type: 'resource',
      warcVersion: WARC_1_1,
      warcHeaders: { 'Content-Type': mediaType, 'WARC-Payload-Digest': digest, 'WARC-Block-Digest': digest },
    },
    [bytesOf(body)],
  );
  return { record, mediaType };
}

/** A response header's value by case-insensitive name. */
function headerValue(headers: ReadonlyArray<readonly [string, string]>, name: string): string | undefined {
  return headers.find(([n]) => n.toLowerCase() === name)?.[1];
}

// The body is stored decoded (as the page consumed it), so headers describing the wire encoding
// would make replay tools decode it a second time. They are kept under X-Orig-* names and
// Content-Length states the stored length.
const WIRE_ENCODING_HEADERS = new Set(['content-encoding', 'transfer-encoding', 'content-length']);

function responseHeaders(exchange: NetworkExchange): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [name, value] of exchange.responseHeaders) {
    if (!isHeaderName(name)) continue;
    if (WIRE_ENCODING_HEADERS.has(name.toLowerCase())) {
      out.push([`X-Orig-${name}`, clean(value)]);
    } else {
      out.push([name, clean(redactedValue(name, value))]);
    }
  }
  out.push(['Content-Length', String(exchange.body.byteLength)]);
  return out;
}

/**
 * HTTP headers written exactly as received, in order, repeats kept. warcio's own multi-map joins
 * repeats with ",,," and splits any value containing that marker (and refuses repeated "WARC-*" names);
 * here lookups see repeats joined with ", " while serialisation yields the original pairs.
 */
class ExactHeaders extends HeadersMultiMap {
  private readonly pairs: Array<[string, string]>;

  constructor(pairs: Array<[string, string]>) {
    super();
    this.pairs = pairs;
    for (const [name, value] of pairs) {
      const previous = super.get(name);
      super.set(name, previous === undefined ? value : `${previous}, ${value}`);
    }
  }

  override isMultiValue(): boolean {
    return false;
  }

  override *[Symbol.iterator](): IterableIterator<[string, string]> {
    yield* this.pairs;
  }
}

function safeUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

function httpVersion(value: string): string {
  if (/^HTTP\/\d(\.\d)?$/i.test(value)) return value.toUpperCase();
  if (value === 'h2') return 'HTTP/2.0';
  if (value === 'h3') return 'HTTP/3.0';
  return 'HTTP/1.1';
}

// HTTP/2 pseudo-headers (":authority") and anything else that is not a token cannot go in a header block.
function isHeaderName(name: string): boolean {
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name);
}

function clean(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
}
