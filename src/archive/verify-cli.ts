import { readFile } from 'node:fs/promises';
import { verifyBundle, type PublishedKey } from './bundle-verifier.js';

/**
 * Offline verification: `verify FILE.wacz [--keys FILE.json | --keys-url URL] [--tsa-ca FILE.pem]... [--tsa-ca-url URL]`
 *
 * Prints the verifyBundle result as JSON (the same checks as GET /v1/verify/{captureId}, without the
 * stored capture record) and returns 0 when verified, 1 otherwise (including bad arguments or
 * unreadable files, which are reported on stderr). The keys document has the shape of
 * GET /.well-known/signing-keys ({ keys: [{ keyId, algorithm, publicKey, archivedAt }] }); a single key
 * as served by /.well-known/signing-key is accepted too. --tsa-ca may repeat; a file may hold several
 * certificates. --tsa-ca-url fetches the built-in TSA certificates a deployment published
 * (GET /.well-known/tsa-certificates: { certificates: [{ fingerprint, publishedAt, pem }] }).
 */
export interface VerifyCliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readFile?(path: string): Promise<Uint8Array>;
  fetch?: typeof globalThis.fetch;
}

export const VERIFY_USAGE =
  'usage: verify FILE.wacz [--keys FILE.json | --keys-url URL] [--tsa-ca FILE.pem]... [--tsa-ca-url URL]\n';

interface CliArgs {
  file: string;
  keysFile?: string;
  keysUrl?: string;
  tsaCaFiles: string[];
  tsaCaUrl?: string;
}

export async function runVerifyCli(argv: string[], io: VerifyCliIo): Promise<number> {
  const read = io.readFile ?? ((path: string) => readFile(path));
  let args: CliArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    io.stderr(`${(error as Error).message}\n${VERIFY_USAGE}`);
    return 1;
  }
  try {
    const bytes = await read(args.file);
    const keys = await loadKeys(args, read, io.fetch ?? globalThis.fetch);
    const tsaCaCertsPem = await Promise.all(
      args.tsaCaFiles.map(async (path) => Buffer.from(await read(path)).toString('utf8')),
    );
    // The deployment's published certificates are its built-in TSAs: timestamps chaining to them are self-issued.
    const builtIn = args.tsaCaUrl !== undefined ? await fetchTsaCertificates(args.tsaCaUrl, io.fetch ?? globalThis.fetch) : [];
    const result = await verifyBundle(bytes, { keys, tsaCaCertsPem: [...tsaCaCertsPem, ...builtIn], selfIssuedTsaCaCertsPem: builtIn });
    io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return result.verified ? 0 : 1;
  } catch (error) {
    io.stderr(`verify: ${(error as Error).message}\n`);
    return 1;
  }
}

function parseArgs(argv: string[]): CliArgs {
  const rest = argv[0] === 'verify' ? argv.slice(1) : [...argv];
  const args: Partial<CliArgs> & { tsaCaFiles: string[] } = { tsaCaFiles: [] };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    const value = () => {
      const next = rest[++i];
      if (next === undefined || next.startsWith('--')) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--keys') args.keysFile = value();
    else if (arg === '--keys-url') args.keysUrl = value();
    else if (arg === '--tsa-ca') args.tsaCaFiles.push(value());
    else if (arg === '--tsa-ca-url') args.tsaCaUrl = value();
    else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`);
    else if (args.file === undefined) args.file = arg;
    else throw new Error(`unexpected argument ${arg}`);
  }
  if (args.file === undefined) throw new Error('no bundle file given');
  if (args.keysFile !== undefined && args.keysUrl !== undefined) throw new Error('give --keys or --keys-url, not both');
  return args as CliArgs;
}

async function loadKeys(
  args: CliArgs,
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
