import { verifyBundleFile } from '../../archive/verify-file.js';
import { CliError, EXIT_FAILURE, EXIT_OK, UsageError } from '../cli-io.js';
import { type CommandSpec, listOpt, stringOpt } from '../command-spec.js';

/** `verify`: the offline bundle verifier (src/archive/verify-file.ts). */
export const verify: CommandSpec = {
  path: ['verify'],
  summary: 'Verify a WACZ evidence bundle offline (signature, bundle hash, timestamp).',
  description: `
Runs the same checks as GET /v1/verify/{captureId} on a local file and prints the result as JSON; exits 0
when verified, 1 when not (or when a file or URL cannot be read), 2 for bad arguments. Without --keys/--keys-url the signature is checked against the public key inside
the bundle only; give the service's published keys to check that the key is one of them. Without
--tsa-ca/--tsa-ca-url a timestamp cannot be checked. Needs neither NATS nor Postgres.`,
  positionals: [{ name: 'FILE.wacz', help: 'the bundle to verify', required: true }],
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
  ],
  async run(args, io) {
    const keysFile = stringOpt(args, 'keys');
    const keysUrl = stringOpt(args, 'keys-url');
    if (keysFile !== undefined && keysUrl !== undefined) throw new UsageError('give --keys or --keys-url, not both');
    const sources = { file: args.positionals[0]!, keysFile, keysUrl, tsaCaFiles: listOpt(args, 'tsa-ca'), tsaCaUrl: stringOpt(args, 'tsa-ca-url') };
    let result;
    try {
      result = await verifyBundleFile(sources, io.readFile ? { readFile: io.readFile } : {});
    } catch (err) {
      throw new CliError((err as Error).message, 'Check the file names and URLs given; nothing was verified.');
    }
    await io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return result.verified ? EXIT_OK : EXIT_FAILURE;
  },
};
