import { runVerifyCli } from '../../archive/verify-cli.js';
import { UsageError } from '../cli-io.js';
import { type CommandSpec, listOpt, stringOpt } from '../command-spec.js';

/** `verify`: the offline bundle verifier (src/archive/verify-cli.ts), argument checking done here for exit code 2. */
export const verify: CommandSpec = {
  path: ['verify'],
  summary: 'Verify a WACZ evidence bundle offline (signature, bundle hash, timestamp).',
  description: `
Runs the same checks as GET /v1/verify/{captureId} on a local file and prints the result as JSON; exits 0
when verified, 1 when not. Without --keys/--keys-url the signature is checked against the public key inside
the bundle only; give the service's published keys to check that the key is one of them.`,
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
    const keys = stringOpt(args, 'keys');
    const keysUrl = stringOpt(args, 'keys-url');
    if (keys !== undefined && keysUrl !== undefined) throw new UsageError('give --keys or --keys-url, not both');
    const argv = [args.positionals[0]!];
    if (keys !== undefined) argv.push('--keys', keys);
    if (keysUrl !== undefined) argv.push('--keys-url', keysUrl);
    for (const ca of listOpt(args, 'tsa-ca')) argv.push('--tsa-ca', ca);
    const tsaCaUrl = stringOpt(args, 'tsa-ca-url');
    if (tsaCaUrl !== undefined) argv.push('--tsa-ca-url', tsaCaUrl);
    return runVerifyCli(argv, { stdout: (t) => void io.stdout(t), stderr: (t) => io.stderr(t) });
  },
};
