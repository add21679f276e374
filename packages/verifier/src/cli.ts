#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { verifyArchiveSegmentFiles } from './archive-files.js';
import { evidenceAccepted, verifyEvidenceFile } from './evidence.js';

/**
 * capture-ledger-verify FILE [trust options] — verifies a WACZ bundle, a certificate PDF or a corroboration record (JSON); prints the result as JSON.
 * Exit 0 verified, 1 not verified (or a source could not be read), 2 bad arguments.
 */
const USAGE = `usage: capture-ledger-verify FILE(.wacz|.pdf|.json) [--keys FILE | --keys-url URL] [--tsa-ca FILE]... [--tsa-ca-url URL]
                             [--log-key FILE | --log-key-url URL] [--log-url URL] [--certificate FILE]
                             [--witness-key KEY|FILE]... [--witness-quorum N]
       capture-ledger-verify MANIFEST --archive-segment --log-key KEY|FILE [--body FILE] [--previous-manifest FILE]

Trust is what you give; nothing in FILE is trusted on its own word.
  --keys FILE         the signing keys, /.well-known/signing-keys (or /.well-known/signing-key) saved as served
  --keys-url URL      fetch them, e.g. https://ledger.example.org/.well-known/signing-keys
  --tsa-ca FILE       a trusted timestamp authority: PEM certificates, or /.well-known/tsa-certificates saved as
                      served (may repeat)
  --tsa-ca-url URL    a deployment's built-in TSA CAs (/.well-known/tsa-certificates); reported as self-issued
  --log-key FILE      the transparency log's verifier key, /v1/log/key saved as served: checks a certificate's
                      embedded inclusion proof, or (with --log-url) a bundle's
  --log-key-url URL   fetch it, e.g. https://ledger.example.org/v1/log/key (the log itself is then beside it)
  --log-url URL       a bundle's log, e.g. https://ledger.example.org/v1/log: its inclusion proof is fetched from
                      there and checked against the log key
  --certificate FILE  with a bundle: its certificate PDF, which must verify and name this very file (its SHA-256
                      and size), not only the same bundle hash
  --witness-key KEY|FILE  a witness you trust (its vkey, C2SP tlog-cosignature), inline or a file (may repeat):
                      the log checkpoint the evidence was checked against must carry a quorum of their
                      cosignatures, reported as \`witnesses\` (a certificate's embedded checkpoint; a bundle's with --log-url)
  --witness-quorum N  how many of the --witness-key witnesses must have cosigned (default: all of them)
  --archive-segment   MANIFEST is an archive segment's manifest (<prefix>/manifests/<n>.json): checks its signature
                      by --log-key, its chain to the previous manifest and its body's digest and ranges; the body
                      and previous manifest default to their places beside it (--body, --previous-manifest)
`;

const VKEY = /^[^\s+]+\+[0-9a-f]{8}\+\S+$/;
const readKey = async (value: string) => (VKEY.test(value) ? value : (await readFile(value, 'utf8')).trim());

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        keys: { type: 'string' },
        'keys-url': { type: 'string' },
        'tsa-ca': { type: 'string', multiple: true },
        'tsa-ca-url': { type: 'string' },
        'log-key': { type: 'string' },
        'log-key-url': { type: 'string' },
        'log-url': { type: 'string' },
        certificate: { type: 'string' },
        'witness-key': { type: 'string', multiple: true },
        'witness-quorum': { type: 'string' },
        'archive-segment': { type: 'boolean' },
        body: { type: 'string' },
        'previous-manifest': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (
    positionals.length !== 1 ||
    (values.keys !== undefined && values['keys-url'] !== undefined) ||
    (values['log-key'] !== undefined && values['log-key-url'] !== undefined) ||
    (values['witness-quorum'] !== undefined && !/^[1-9]\d*$/.test(values['witness-quorum']))
  ) {
    process.stderr.write(USAGE);
    return 2;
  }
  const read = async (path: string) => new Uint8Array(await readFile(path));
  if (values['archive-segment']) {
    if (values['log-key'] === undefined) {
      process.stderr.write(`--archive-segment needs --log-key\n${USAGE}`);
      return 2;
    }
    const result = await verifyArchiveSegmentFiles(
      {
        manifest: positionals[0]!,
        body: values.body,
        previousManifest: values['previous-manifest'],
        logKey: await readKey(values['log-key']),
      },
      (path) => read(path).catch(() => null),
    );
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return result.verified ? 0 : 1;
  }
  try {
    const result = await verifyEvidenceFile(
      {
        file: positionals[0]!,
        keysFile: values.keys,
        keysUrl: values['keys-url'],
        tsaCaFiles: values['tsa-ca'] ?? [],
        tsaCaUrl: values['tsa-ca-url'],
        logKeyFiles: values['log-key'] !== undefined ? [values['log-key']] : [],
        logKeyUrl: values['log-key-url'],
        logUrl: values['log-url'],
        certificateFile: values.certificate,
        witnessKeys: await Promise.all((values['witness-key'] ?? []).map(readKey)),
        witnessQuorum: values['witness-quorum'] !== undefined ? Number(values['witness-quorum']) : undefined,
      },
      { readFile: async (path) => new Uint8Array(await readFile(path)) },
    );
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return evidenceAccepted(result) ? 0 : 1;
  } catch (error) {
    process.stderr.write(`capture-ledger-verify: ${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
