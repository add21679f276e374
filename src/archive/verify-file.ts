import { readFile } from 'node:fs/promises';
import { verifyBundle, type PublishedKey, type VerificationResult, type VerifyOptions } from './bundle-verifier.js';

/**
 * Offline verification of a bundle file (the `capture-ledger verify` command, src/cli/commands/verify.ts):
 * the same checks as GET /v1/verify/{captureId}, without the stored capture record. The keys document has the
 * shape of GET /.well-known/signing-keys ({ keys: [{ keyId, algorithm, publicKey, archivedAt }] }); a single
 * key as served by /.well-known/signing-key is accepted too. A CA file may hold several certificates.
 * `tsaCaUrl` fetches the built-in TSA certificates a deployment published (GET /.well-known/tsa-certificates:
 * { certificates: [{ fingerprint, publishedAt, pem }] }); timestamps chaining to them are named self-issued.
 */
export interface VerifySources {
  file: string;
  keysFile?: string | undefined;
  keysUrl?: string | undefined;
  tsaCaFiles: string[];
  tsaCaUrl?: string | undefined;
  /** The log's proof for the bundle (src/transparency/offline-proof.ts), or why there is none: adds the transparency check. */
  transparency?: VerifyOptions['transparency'];
}

export interface VerifyFileIo {
  readFile?(path: string): Promise<Uint8Array>;
  fetch?: typeof globalThis.fetch;
}

/** Throws (with the file or URL named) when a source cannot be read; a bundle that fails a check is a result. */
export async function verifyBundleFile(sources: VerifySources, io: VerifyFileIo = {}): Promise<VerificationResult> {
  const read = io.readFile ?? ((path: string) => readFile(path));
  const doFetch = io.fetch ?? globalThis.fetch;
  const bytes = await read(sources.file);
  const keys = await loadKeys(sources, read, doFetch);
  const tsaCaCertsPem = await Promise.all(sources.tsaCaFiles.map(async (path) => Buffer.from(await read(path)).toString('utf8')));
  const builtIn = sources.tsaCaUrl !== undefined ? await fetchTsaCertificates(sources.tsaCaUrl, doFetch) : [];
  return verifyBundle(bytes, {
    keys,
    tsaCaCertsPem: [...tsaCaCertsPem, ...builtIn],
    selfIssuedTsaCaCertsPem: builtIn,
    ...(sources.transparency ? { transparency: sources.transparency } : {}),
  });
}

async function loadKeys(
  args: VerifySources,
  read: (path: string) => Promise<Uint8Array>,
  doFetch: typeof globalThis.fetch,
): Promise<PublishedKey[]> {
  let document: unknown;
  if (args.keysFile !== undefined) {
    document = parseJson(Buffer.from(await read(args.keysFile)).toString('utf8'), args.keysFile);
  } else if (args.keysUrl !== undefined) {
    const response = await doFetch(args.keysUrl, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`${args.keysUrl} answered HTTP ${response.status}`);
    document = parseJson(await response.text(), args.keysUrl);
  } else {
    return [];
  }
  return keysOf(document, args.keysFile ?? args.keysUrl ?? 'keys');
}

async function fetchTsaCertificates(url: string, doFetch: typeof globalThis.fetch): Promise<string[]> {
  const response = await doFetch(url, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  const document = parseJson(await response.text(), url) as { certificates?: unknown };
  if (!Array.isArray(document.certificates)) throw new Error(`${url} has no "certificates" array`);
  return document.certificates.map((c, index) => {
    const pem = (c as { pem?: unknown } | null)?.pem;
    if (typeof pem !== 'string') throw new Error(`${url}: certificate ${index} has no "pem" string`);
    return pem;
  });
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${source} is not valid JSON`);
  }
}

function keysOf(document: unknown, source: string): PublishedKey[] {
  const record = (typeof document === 'object' && document !== null ? document : {}) as Record<string, unknown>;
  const list = Array.isArray(record['keys']) ? record['keys'] : 'keyId' in record ? [record] : null;
  if (!list) throw new Error(`${source} has no "keys" array`);
  return list.map((entry, index) => {
    const key = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    if (typeof key['keyId'] !== 'string' || typeof key['publicKey'] !== 'string') {
      throw new Error(`${source}: key ${index} needs string keyId and publicKey`);
    }
    return {
      keyId: key['keyId'],
      publicKey: key['publicKey'],
      ...(typeof key['algorithm'] === 'string' ? { algorithm: key['algorithm'] } : {}),
      ...(typeof key['archivedAt'] === 'string' ? { archivedAt: key['archivedAt'] } : {}),
    };
  });
}
