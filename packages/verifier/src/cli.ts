#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { verifyEvidenceFile } from './evidence.js';

/**
 * capture-ledger-verify FILE [--keys FILE | --keys-url URL] [--tsa-ca FILE]... [--tsa-ca-url URL] [--log-key FILE | --log-key-url URL]
 * Verifies a WACZ bundle or a certificate PDF; prints the result as JSON. Exit 0 verified, 1 not verified
 * (or a source could not be read), 2 bad arguments.
 */
const USAGE = `usage: capture-ledger-verify FILE(.wacz|.pdf) [--keys FILE | --keys-url URL] [--tsa-ca FILE]... [--tsa-ca-url URL]
                             [--log-key FILE | --log-key-url URL]

  --keys FILE        published keys, as served by /.well-known/signing-keys
  --keys-url URL     fetch them, e.g. https://ledger.example.org/.well-known/signing-keys
  --tsa-ca FILE      PEM of a trusted timestamp authority CA (may repeat)
  --tsa-ca-url URL   a deployment's built-in TSA CAs (/.well-known/tsa-certificates); reported as self-issued
  --log-key FILE     a transparency log's verifier key (/v1/log/key): checks a certificate's inclusion proof
  --log-key-url URL  fetch it, e.g. https://ledger.example.org/v1/log/key
`;

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
    (values['log-key'] !== undefined && values['log-key-url'] !== undefined)
  ) {
    process.stderr.write(USAGE);
    return 2;
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
      },
      { readFile: async (path) => new Uint8Array(await readFile(path)) },
    );
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return result.verified ? 0 : 1;
  } catch (error) {
    process.stderr.write(`capture-ledger-verify: ${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
