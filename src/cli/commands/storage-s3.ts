import { randomUUID } from 'node:crypto';
import { createTenantActors } from '../../actors/tenant-actors.js';
import { createRetention, retentionPolicy } from '../../application/retention.js';
import { diffObjectsByCapture, migrateStoredEvidence } from '../../storage/storage-migration.js';
import { openCertificateStore } from '../../evidence/certificate.js';
import { corroborationKeys } from '../../vantages/corroboration-rules.js';
import { DomainError } from '../../domain/errors.js';
import { createProjectionWaiter } from '../../projector/projection-waiter.js';
import { CliError, EXIT_FAILURE, EXIT_OK, UsageError } from '../cli-io.js';
import { openSession } from '../cli-session.js';
import { type CommandSpec, stringOpt } from '../command-spec.js';
import { ledgerWalkRange, startLedgerWalk } from '../ledger-walk.js';
import { jsonLine } from '../output-format.js';
import { configuredStore, jetstreamStore, s3Store } from './storage.js';

/** `storage migrate`: JetStream → S3 (docs/storage.md). */
export const storageMigrate: CommandSpec = {
  path: ['storage', 'migrate'],
  summary: 'Copy every artifact the ledger names from the JetStream object store to S3 (resumable, idempotent).',
  description: `
Walks the LEDGER stream and, for every capture.completed event, copies each object its artifacts name from
the nats-server's artifacts store (NATS_URL) to the S3 bucket of S3_ENDPOINT / S3_BUCKET (created with Object
Lock when absent), reading each object whole and checking it against its digest first, and locking it for the
tenant's retention (or RETENTION_DEFAULT_DAYS) from the capture's completion, as new captures are. With each capture
go its issued certificate and corroboration records (from the KV bucket) and the change certificates and diff
evidence made of it (found by name under diffs/<captureId>/ in the artifacts store). An object the bucket
holds already with the same digest is skipped, so the command can be run again at any time and copies only
what is new. Prints one JSON line per object missing or damaged in the source (or held with other bytes in
the bucket) and a summary at the end; progress on stderr. Stopped (Ctrl-C), the summary names the --from to
resume with. Then set ARTIFACT_STORE=s3, restart the service, and run \`capture-ledger storage verify\`.`,
  options: {
    from: { type: 'string', value: 'SEQ', help: 'first LEDGER stream sequence to copy (resume)', default: '1' },
    until: { type: 'string', value: 'SEQ', help: 'last LEDGER stream sequence to copy (default: the last one now)' },
  },
  examples: ['S3_ENDPOINT=http://s3:9000 S3_BUCKET=evidence capture-ledger storage migrate'],
  async run(args, io) {
    const range = ledgerWalkRange(args);
    const session = openSession(io);
    try {
      const events = await session.store();
      const [source, target] = [await jetstreamStore(session), await s3Store(session, true)];
      const run = await startLedgerWalk(io, range, events, 'storage migrate');
      const retainUntil = retentionPolicy({ pool: await session.pool(), config: session.config }, target);
      // Certificates and corroboration records issued in the source deployment live in its KV bucket; in S3 they
      // sit beside the artifacts.
      const { nc, js } = await session.nats();
      const certificates = await openCertificateStore(nc);
      let diffs: Promise<(captureId: string) => string[]> | undefined;
      const tally = await migrateStoredEvidence({
        ...run.walk,
        events,
        source,
        target,
        retainUntil,
        certificateOf: async (captureId) => {
          const entry = await certificates.get(captureId);
          return entry?.operation === 'PUT' && entry.value.length > 0 ? entry.value : null;
        },
        // Corroboration records sit in the same KV bucket.
        corroborationRecordOf: async (id) => {
          const entry = await certificates.get(corroborationKeys.record(id));
          return entry?.operation === 'PUT' && entry.value.length > 0 ? entry.value : null;
        },
        // Change certificates and diff evidence: listed once from the source's bucket, by capture.
        diffObjectsOf: async (captureId) => (await (diffs ??= diffObjectsByCapture(js)))(captureId),
        onProblem: (p) => io.stdout(jsonLine(p)),
      });
      await run.finish(tally);
      run.noteResume(tally);
      return tally.missing + tally.corrupt > 0 ? EXIT_FAILURE : EXIT_OK;
    } finally {
      await session.close();
    }
  },
};

const holdOptions = {
  by: { type: 'string', value: 'WHO', help: 'who places or lifts it (recorded on the ledger)', required: true },
  reason: { type: 'string', value: 'WHY', help: 'why (recorded on the ledger)', required: true },
} as const;

function legalHoldCommand(active: boolean): CommandSpec {
  return {
    path: ['storage', active ? 'hold' : 'release'],
    summary: active
      ? 'Place a legal hold on one capture: storage refuses deleting any of its objects until released.'
      : "Lift a capture's legal hold (its retention, if any, still applies).",
    description: `
Like PUT /v1/admin/captures/{captureId}/legal-hold with active ${active}: ${active ? 'places' : 'lifts'} an S3 Object Lock
legal hold on every stored object of the capture, then records capture.legal_hold_${active ? 'placed' : 'lifted'} on the
tenant's ledger with --by and --reason. Needs ARTIFACT_STORE=s3 with an Object Lock bucket (docs/storage.md).
Prints the capture's retention and hold as JSON.`,
    positionals: [{ name: 'CAPTURE_ID', help: 'the capture (cap_…)', required: true }],
    options: holdOptions,
    examples: [
      `capture-ledger storage ${active ? 'hold' : 'release'} cap_0123456789abcdef0123456789abcdef --by counsel@example.com --reason 'Case 24-cv-0113'`,
    ],
    async run(args, io) {
      const captureId = args.positionals[0]!;
      const by = stringOpt(args, 'by')!.trim();
      const reason = stringOpt(args, 'reason')!.trim();
      if (!by || !reason) throw new UsageError('--by and --reason must not be empty: the ledger records them');
      const session = openSession(io);
      let tenants: ReturnType<typeof createTenantActors> | null = null;
      try {
        tenants = createTenantActors(await session.store());
        const pool = await session.pool();
        const retention = createRetention(
          { pool, config: session.config, tenants, waiter: createProjectionWaiter(pool) },
          await configuredStore(session),
        );
        let view;
        try {
          view = await retention.setLegalHold(`cli-${randomUUID()}`, captureId, active, { by, reason });
        } catch (err) {
          if (err instanceof DomainError) throw new CliError(err.detail);
          throw err;
        }
        await io.stdout(jsonLine(view));
        return EXIT_OK;
      } finally {
        tenants?.close();
        await session.close();
      }
    },
  };
}

export const storageHold = legalHoldCommand(true);
export const storageRelease = legalHoldCommand(false);
