import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { unzipSync, zipSync } from 'fflate';
import type { NetworkExchange } from '../../../src/domain/network-exchange.js';
import { makeBundle, type MakeBundleOptions, type SignedBundle } from '../../../src/archive/bundle.js';
import type { FinishedCapture, RecordedPage } from '../../../src/archive/finished-capture.js';
import { localNotary, type Notary } from '../../../src/archive/notary.js';
import { type LocalTsa, startLocalTsa } from '../../../src/archive/local-tsa.js';
import { createTsaClient } from '../../../src/archive/tsa-client.js';
import { signingKeyFromSeed } from '../../../src/archive/signing-key.js';

/** Test data for the archive module: a small page as the browser saw it, and zip helpers. */

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('not really an image')]);

export function sampleExchanges(): NetworkExchange[] {
  return [
    {
      url: 'http://example.com/',
      method: 'GET',
      requestHeaders: { 'User-Agent': 'test-browser', Accept: 'text/html' },
      status: 301,
      statusText: 'Moved Permanently',
      httpVersion: 'HTTP/1.1',
      responseHeaders: [['Location', 'https://www.example.com/']],
      body: Buffer.alloc(0),
      startedAt: '2024-05-01T10:00:00.000Z',
    },
    {
      url: 'https://www.example.com/',
      method: 'GET',
      requestHeaders: { ':authority': 'www.example.com', 'User-Agent': 'test-browser' },
      status: 200,
      statusText: 'OK',
      httpVersion: 'h2',
      responseHeaders: [
        ['content-type', 'text/html; charset=utf-8'],
        ['content-encoding', 'gzip'],
        ['content-length', '77'],
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
      ],
      body: Buffer.from(
        '<html><head><title>Example</title><link rel=stylesheet href=/s.css></head><body>Hi</body></html>',
      ),
      remoteAddress: '93.184.216.34',
      startedAt: '2024-05-01T10:00:00.500Z',
    },
    {
      url: 'https://www.example.com/s.css',
      method: 'GET',
      requestHeaders: { 'User-Agent': 'test-browser', Referer: 'https://www.example.com/' },
      status: 200,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      responseHeaders: [
        ['Content-Type', 'text/css'],
        ['Transfer-Encoding', 'chunked'],
      ],
      body: Buffer.from('body { color: red }'),
      startedAt: '2024-05-01T10:00:00.700Z',
    },
    {
      url: 'https://api.example.com/track?b=2&a=1',
      method: 'POST',
      requestHeaders: { 'Content-Type': 'application/json' },
      requestBody: Buffer.from('{"event":"view"}'),
      status: 204,
      statusText: 'No Content',
      httpVersion: 'HTTP/1.1',
      responseHeaders: [],
      body: Buffer.alloc(0),
      startedAt: '2024-05-01T10:00:00.900Z',
    },
  ];
}

export function sampleCapture(
  overrides: Partial<Omit<FinishedCapture, 'page'>> & { page?: Partial<RecordedPage> } = {},
): FinishedCapture {
  const { page, ...capture } = overrides;
  return {
    captureId: 'cap_0123456789abcdef0123456789abcdef',
    url: 'https://www.example.com/',
    createdAt: '2024-05-01T09:59:59.000Z',
    completedAt: '2024-05-01T10:00:05.000Z',
    page: {
      title: 'Example',
      exchanges: sampleExchanges(),
      screenshot: PNG,
      screenshotBefore: Buffer.concat([PNG, Buffer.from(' before')]),
      html: '<html><body>Hi — rendered</body></html>',
      headers: { 'content-type': 'text/html; charset=utf-8', 'set-cookie': '[redacted]' },
      ...page,
    },
    ...capture,
  };
}

/** makeBundle with a notary that holds its key here (localNotary), which always makes one. */
export async function signedBundle(
  capture: FinishedCapture,
  notary: Notary,
  options?: MakeBundleOptions,
): Promise<SignedBundle> {
  const bundle = await makeBundle(capture, notary, options);
  if (!bundle) throw new Error('the notary made no bundle');
  return bundle;
}

/** RFC 8032 test vector 1 seed; any fixed seed would do. */
export const TEST_SEED = Buffer.from(
  '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
  'hex',
).toString('base64');
export const testKey = () => signingKeyFromSeed(TEST_SEED);
export const publishedKeys = () => {
  const key = testKey();
  return [
    { keyId: key.keyId, algorithm: 'Ed25519', publicKey: key.publicKeyBase64, archivedAt: '2024-01-01T00:00:00Z' },
  ];
};

export function unzip(bytes: Uint8Array): Record<string, Uint8Array> {
  return unzipSync(bytes);
}

export function rezip(files: Record<string, Uint8Array>): Buffer {
  return Buffer.from(zipSync(files, { level: 0 }));
}

export function readJson(files: Record<string, Uint8Array>, path: string): any {
  return JSON.parse(Buffer.from(files[path] as Uint8Array).toString('utf8'));
}

export function writeJson(files: Record<string, Uint8Array>, path: string, value: unknown): void {
  files[path] = new TextEncoder().encode(JSON.stringify(value));
}

/** Central-directory entries of a zip: name and compression method (0 = STORED). */
export function zipEntries(
  bytes: Uint8Array,
): Array<{ name: string; method: number; compressedSize: number; size: number }> {
  const view = Buffer.from(bytes);
  let end = view.length - 22;
  while (end >= 0 && view.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error('no end of central directory');
  const count = view.readUInt16LE(end + 10);
  let offset = view.readUInt32LE(end + 16);
  const entries = [];
  for (let i = 0; i < count; i++) {
    if (view.readUInt32LE(offset) !== 0x02014b50) throw new Error('bad central directory entry');
    const method = view.readUInt16LE(offset + 10);
    const compressedSize = view.readUInt32LE(offset + 20);
    const size = view.readUInt32LE(offset + 24);
    const nameLength = view.readUInt16LE(offset + 28);
    const extraLength = view.readUInt16LE(offset + 30);
    const commentLength = view.readUInt16LE(offset + 32);
    const name = view.toString('utf8', offset + 46, offset + 46 + nameLength);
    entries.push({ name, method, compressedSize, size });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The WARC record text (headers + block) at a CDXJ offset/length inside data.warc.gz. */
export function recordAt(warcGz: Uint8Array, offset: number, length: number): string {
  return gunzipSync(Buffer.from(warcGz.subarray(offset, offset + length))).toString('latin1');
}

/** The sample capture as a v0.1.0 bundle and as a v0.2.0 bundle time-stamped by a local TSA, with what verifies them. */
export interface BothVersions {
  dir: string;
  tsa: LocalTsa;
  v1: SignedBundle;
  v2: SignedBundle;
  options: { keys: ReturnType<typeof publishedKeys>; tsaCaCertsPem: string[] };
}

export async function bundlesOfBothVersions(prefix: string): Promise<BothVersions> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const tsa = await startLocalTsa({ dir: join(dir, 'tsa') });
  return {
    dir,
    tsa,
    options: { keys: publishedKeys(), tsaCaCertsPem: [tsa.caCertPem] },
    v1: await signedBundle(sampleCapture(), localNotary(testKey())),
    v2: await signedBundle(sampleCapture(), localNotary(testKey(), { timestamper: createTsaClient({ url: tsa.url }) })),
  };
}

export async function closeBundlesOfBothVersions(f: Pick<BothVersions, 'dir' | 'tsa'>): Promise<void> {
  await f.tsa.close();
  await rm(f.dir, { recursive: true, force: true });
}
