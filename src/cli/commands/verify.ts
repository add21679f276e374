import { readFile } from 'node:fs/promises';
import { evidenceKind, verifyEvidenceFile, witnessReport } from '../../../packages/verifier/src/index.js';
import { CliError, EXIT_FAILURE, EXIT_OK, UsageError } from '../cli-io.js';
import { type CommandSpec, intOpt, listOpt, stringOpt } from '../command-spec.js';
import { createLogClient } from '../../transparency/log-client.js';
import { captureIdOfBundle, fetchEvidence } from '../../transparency/offline-proof.js';
import { withTransparency, type TransparencyInput } from '../../transparency/verify-transparency.js';
import { readLogKey } from './log.js';

/** `verify`: the offline verifier of bundles, certificates and diffs (the verifier package, packages/verifier). */
export const verify: CommandSpec = {
  path: ['verify'],
  summary:
    'Verify a WACZ evidence bundle or a capture certificate (PDF) offline (signature, hashes, timestamp, transparency log).',
  description: `
Runs the same checks as GET /v1/verify/{captureId} on a local WACZ file (with --log-url, the bundle's
inclusion in the transparency log is reported beside them as \`transparency\`, as the API does) — or, for a certificate PDF
(GET /v1/captures/{id}/certificate), the checks of its embedded signature: envelope, certificateHash,
signature, timestamp, and transparency when it carries a transparency-log proof (checked against the
checkpoint it embeds, whose signer is trusted only with --log-key) — or, for a corroboration record (JSON, as GET
/v1/captures/{id}/corroboration answers it), format, recordHash, signature and timestamp — or, for the diff of two
captures (POST /v1/captures/{id}/diff/evidence makes it, docs/watch.md), the checks envelope, recordHash, signature,
timestamp — and prints the result as JSON; exits 0 when verified, 1 when not (or when a file or
URL cannot be read, or when a bundle's transparency result asked for with --log-url fails), 2 for bad arguments. A signature is only trusted with a published key: without
--keys/--keys-url the signature check fails. Without --tsa-ca/--tsa-ca-url a timestamp cannot be checked.
Needs neither NATS nor Postgres; the same verifier is the npm package @capture-ledger/verifier.`,
  positionals: [
    {
      name: 'FILE',
      help: 'the bundle (.wacz), certificate (.pdf), corroboration record or diff evidence (.json) to verify',
      required: true,
    },
  ],
  options: {
    keys: { type: 'string', value: 'FILE', help: 'published keys as served by /.well-known/signing-keys (JSON file)' },
    'keys-url': { type: 'string', value: 'URL', help: 'fetch the published keys from this URL' },
    'tsa-ca': {
      type: 'string',
      value: 'FILE',
      multiple: true,
      help: 'PEM file of trusted timestamp authority certificates (may repeat)',
    },
    'tsa-ca-url': {
      type: 'string',
      value: 'URL',
      help: 'fetch the built-in TSA certificates a deployment published (/.well-known/tsa-certificates)',
    },
    'log-url': {
      type: 'string',
      value: 'URL',
      help: "check the bundle's inclusion in this public transparency log (…/v1/log); needs --log-key",
    },
    'log-key': {
      type: 'string',
      value: 'KEY|FILE',
      help: "the log's pinned verifier key (GET /v1/log/key), inline or a file; alone, for a certificate's embedded proof",
    },
    'trusted-checkpoint': {
      type: 'string',
      value: 'FILE',
      help: "a checkpoint saved earlier: today's log must be consistent with it",
    },
    'witness-key': {
      type: 'string',
      value: 'KEY|FILE',
      multiple: true,
      help: "a witness you trust (its vkey), inline or a file (may repeat): the log's checkpoint must carry a quorum of their cosignatures",
    },
    'witness-quorum': {
      type: 'string',
      value: 'N',
      help: 'how many of the --witness-key witnesses must have cosigned (default: all of them)',
    },
  },
  examples: [
    'capture-ledger verify capture.wacz --keys-url https://ledger.example.org/.well-known/signing-keys',
    'capture-ledger verify capture.wacz --keys-url https://ledger.example.org/.well-known/signing-keys --tsa-ca-url https://ledger.example.org/.well-known/tsa-certificates',
    'capture-ledger verify capture.wacz --keys keys.json --tsa-ca tsa-ca.pem',
    'capture-ledger verify capture.wacz --keys keys.json --log-url https://ledger.example.org/v1/log --log-key log.vkey --trusted-checkpoint saved-checkpoint.txt',
    'capture-ledger verify certificate.pdf --keys-url https://ledger.example.org/.well-known/signing-keys --tsa-ca-url https://ledger.example.org/.well-known/tsa-certificates',
    'capture-ledger verify certificate.pdf --keys keys.json --tsa-ca-url https://ledger.example.org/.well-known/tsa-certificates --log-key log.vkey',
    'capture-ledger verify capture.wacz --keys keys.json --log-url https://ledger.example.org/v1/log --log-key log.vkey --witness-key w1.vkey --witness-key w2.vkey --witness-quorum 1',
    'capture-ledger verify cap_x-diff.json --keys-url https://ledger.example.org/.well-known/signing-keys --tsa-ca-url https://ledger.example.org/.well-known/tsa-certificates',
  ],
  async run(args, io) {
    const keysFile = stringOpt(args, 'keys');
    const keysUrl = stringOpt(args, 'keys-url');
    if (keysFile !== undefined && keysUrl !== undefined) throw new UsageError('give --keys or --keys-url, not both');
    const logUrl = stringOpt(args, 'log-url');
    const logKeyArg = stringOpt(args, 'log-key');
    const trustedPath = stringOpt(args, 'trusted-checkpoint');
    if (logUrl !== undefined && logKeyArg === undefined)
      throw new UsageError("--log-url needs --log-key (the log's pinned verifier key)");
    if (trustedPath !== undefined && logUrl === undefined)
      throw new UsageError('--trusted-checkpoint needs --log-url and --log-key');
    const logKey = logKeyArg !== undefined ? await readLogKey(logKeyArg) : null;
    const witnessKeys = await Promise.all(listOpt(args, 'witness-key').map(readWitnessKey));
    const witnessQuorum = intOpt(args, 'witness-quorum', 1, Math.max(1, witnessKeys.length));
    if (witnessQuorum !== undefined && witnessKeys.length === 0)
      throw new UsageError('--witness-quorum goes with --witness-key');
    const sources = {
      file: args.positionals[0]!,
      keysFile,
      keysUrl,
      tsaCaFiles: listOpt(args, 'tsa-ca'),
      tsaCaUrl: stringOpt(args, 'tsa-ca-url'),
      logKeys: logKey ? [logKey.text] : [],
    };
    let result;
    let inconsistent: string | null = null;
    try {
      const read = io.readFile ?? (async (path: string) => new Uint8Array(await readFile(path)));
      let transparency: TransparencyInput | undefined;
      const bytes = await read(sources.file);
      if (evidenceKind(bytes) === 'bundle' && logKey && logUrl === undefined)
        throw new UsageError('a bundle is checked against the log with --log-url and --log-key together');
      if (logUrl !== undefined && logKey && evidenceKind(bytes) === 'bundle') {
        const captureId = captureIdOfBundle(bytes);
        const trusted = trustedPath !== undefined ? Buffer.from(await read(trustedPath)).toString('utf8') : undefined;
        const evidence = captureId
          ? await fetchEvidence(createLogClient(logUrl), logKey.verifier, logKey.text, captureId, trusted)
          : { unavailable: 'the bundle names no captureId' };
        if ('inconsistent' in evidence) inconsistent = evidence.inconsistent;
        transparency = 'inconsistent' in evidence ? { unavailable: evidence.inconsistent } : evidence;
      }
      // This command checks a bundle's log itself (--trusted-checkpoint too), so the package is given the key for a certificate only.
      const trustSources =
        evidenceKind(bytes) === 'bundle'
          ? { ...sources, logKeys: [] }
          : { ...sources, witnessKeys, witnessQuorum: witnessQuorum ?? witnessKeys.length };
      const verified = await verifyEvidenceFile(trustSources, { readFile: read });
      // A certificate carries its own proof (checked by the verifier with --log-key); a bundle's is fetched from --log-url.
      result = transparency && verified.kind === 'bundle' ? withTransparency(verified, transparency) : verified;
      if (witnessKeys.length > 0 && verified.kind === 'bundle') {
        const checkpoint = transparency && 'checkpoint' in transparency ? transparency.checkpoint : null;
        result = {
          ...result,
          witnesses: await witnessReport(checkpoint, witnessKeys, witnessQuorum ?? witnessKeys.length),
        };
      }
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new CliError((err as Error).message, 'Check the file names and URLs given; nothing was verified.');
    }
    if (inconsistent && 'transparency' in result) {
      // A log that is not consistent with what the user saved earlier fails the log's result, whatever it proves today.
      result = { ...result, transparency: { status: 'fail' as const, detail: inconsistent } };
    }
    await io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    // `verified` is the spec's (2.6); a log check asked for with --log-url that fails fails the command too.
    const logFailed = 'transparency' in result && result.transparency?.status === 'fail';
    // So does a checkpoint below the quorum of the witnesses given (--witness-key, --witness-quorum).
    const unwitnessed = 'witnesses' in result && result.witnesses?.status === 'fail';
    return result.verified && !logFailed && !unwitnessed ? EXIT_OK : EXIT_FAILURE;
  },
};

/** A witness vkey given inline or as a file holding one. */
async function readWitnessKey(value: string): Promise<string> {
  if (/^[^\s+]+\+[0-9a-f]{8}\+\S+$/.test(value)) return value;
  try {
    return (await readFile(value, 'utf8')).trim();
  } catch {
    throw new UsageError(
      `--witness-key is neither a witness vkey (<name>+<hex key ID>+<base64 key>) nor a readable file: ${value}`,
    );
  }
}
