import { readFile } from 'node:fs/promises';
import { verifyEvidenceFile } from '../../../packages/verifier/src/index.js';
import { CliError, EXIT_FAILURE, EXIT_OK, UsageError } from '../cli-io.js';
import { type CommandSpec, listOpt, stringOpt } from '../command-spec.js';

/** `verify`: the offline verifier of bundles and certificates (the verifier package, packages/verifier). */
export const verify: CommandSpec = {
  path: ['verify'],
  summary: 'Verify a WACZ evidence bundle or a capture certificate (PDF) offline (signature, hashes, timestamp).',
  description: `
Runs the same checks as GET /v1/verify/{captureId} on a local WACZ file — or, for a certificate PDF
(GET /v1/captures/{id}/certificate), the checks of its embedded signature: envelope, certificateHash,
signature, timestamp — and prints the result as JSON; exits 0 when verified, 1 when not (or when a file or
URL cannot be read), 2 for bad arguments. A signature is only trusted with a published key: without
--keys/--keys-url the signature check fails. Without --tsa-ca/--tsa-ca-url a timestamp cannot be checked.
Needs neither NATS nor Postgres; the same verifier is the npm package @capture-ledger/verifier.`,
  positionals: [{ name: 'FILE', help: 'the bundle (.wacz) or certificate (.pdf) to verify', required: true }],
  options: {
    keys: { type: 'string', value: 'FILE', help: 'published keys as served by /.well-known/signing-keys (JSON file)' },
    'keys-url': { type: 'string', value: 'URL', help: 'fetch the published keys from this URL' },
    'tsa-ca': { type: 'string', value: 'FILE', multiple: true, help: 'PEM file of trusted timestamp authority certificates (may repeat)' },
    'tsa-ca-url': { type: 'string', value: 'URL', help: 'fetch the built-in TSA certificates a deployment published (/.well-known/tsa-certificates)' },
  },
  examples: [
    'capture-ledger verify capture.wacz --keys-url https://ledger.example.org/.well-known/signing-keys',
    'capture-ledger verify capture.wacz --keys-url https://ledger.example.org/.well-known/signing-keys --tsa-ca-url https://ledger.example.org/.well-known/tsa-certificates',
    'capture-ledger verify capture.wacz --keys keys.json --tsa-ca tsa-ca.pem',
    'capture-ledger verify certificate.pdf --keys-url https://ledger.example.org/.well-known/signing-keys --tsa-ca-url https://ledger.example.org/.well-known/tsa-certificates',
  ],
  async run(args, io) {
    const keysFile = stringOpt(args, 'keys');
    const keysUrl = stringOpt(args, 'keys-url');
    if (keysFile !== undefined && keysUrl !== undefined) throw new UsageError('give --keys or --keys-url, not both');
    const sources = { file: args.positionals[0]!, keysFile, keysUrl, tsaCaFiles: listOpt(args, 'tsa-ca'), tsaCaUrl: stringOpt(args, 'tsa-ca-url') };
    let result;
    try {
      result = await verifyEvidenceFile(sources, { readFile: io.readFile ?? (async (path) => new Uint8Array(await readFile(path))) });
    } catch (err) {
      throw new CliError((err as Error).message, 'Check the file names and URLs given; nothing was verified.');
    }
    await io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return result.verified ? EXIT_OK : EXIT_FAILURE;
  },
};
