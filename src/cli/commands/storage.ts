import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { ArtifactStore } from '../../storage/artifact-store.js';
import { artifactStoreOver } from '../../storage/jetstream-artifact-store.js';
import { openS3ArtifactStore } from '../../storage/s3-artifact-store.js';
import { defaultRetentionDays, type S3Settings, storageSettings } from '../../config/storage-config.js';
import { anyTenantRetention } from '../../../projections/read-models/retention.js';
import { checkStoredEvidence } from '../../storage/stored-evidence-check.js';
import { evidencePrefixes } from '../../application/retention.js';
import { whileNatsUnavailable } from '../../infra/nats-unavailable.js';
import { type CheckFinding, checkResult, MAX_RECORDED_FINDINGS } from '../../application/operator-checks.js';
import { recordCheck } from '../check-record.js';
import { CliError, EXIT_FAILURE, EXIT_OK } from '../cli-io.js';
import { type CliSession, openSession } from '../cli-session.js';
import type { CommandSpec } from '../command-spec.js';
import { ledgerWalkRange, startLedgerWalk } from '../ledger-walk.js';
import { jsonLine } from '../output-format.js';

/** `storage verify`: is every artifact the ledger names still stored, whole? (docs/operators.md) */
export const storageVerify: CommandSpec = {
  path: ['storage', 'verify'],
  summary:
    'Read every artifact the ledger names back from storage and check its digest; name each missing or corrupt one.',
  description: `
Walks the LEDGER stream and, for every capture.completed event, reads each object its artifacts name
(screenshots, HTML, headers, PDF, provenance record, WACZ bundle) from the artifacts store the service is
configured with (ARTIFACT_STORE: the JetStream object store, or S3) in full and checks
it against its recorded SHA-256 digest (and a bundle's size against the ledger's). Prints one JSON line per
missing or corrupt object on stdout — tenant, capture, artifact, object name, stream sequence — and a summary
line at the end; progress on stderr. Resumable: the summary (also printed when stopped with Ctrl-C) names the
--from sequence to continue with. Exits 0 when everything checked is whole, 1 otherwise.
Run it after nats-server restarts and upgrades (docs/operators.md says what to do with a loss).`,
  options: {
    from: {
      type: 'string',
      value: 'SEQ',
      help: 'first LEDGER stream sequence to check (resume a stopped run)',
      default: '1',
    },
    until: { type: 'string', value: 'SEQ', help: 'last LEDGER stream sequence to check (default: the last one now)' },
  },
  examples: ['capture-ledger storage verify', 'capture-ledger storage verify --from 48210 > storage-problems.jsonl'],
  async run(args, io) {
    const range = ledgerWalkRange(args);
    const session = openSession(io);
    try {
      const events = await session.store();
      // The store the service is configured with (ARTIFACT_STORE, docs/storage.md).
      const artifacts = await configuredStore(session);
      const run = await startLedgerWalk(io, range, events, 'storage verify');
      const { fromSeq, untilSeq } = run;
      const started = new Date();
      const findings: CheckFinding[] = [];
      const tally = await checkStoredEvidence({
        ...run.walk,
        events,
        artifacts,
        // Where the store keeps what is made of a capture (S3): its certificate and change certificates, stored
        // under its id, are checked too.
        ...(artifacts.keepsMadeEvidence
          ? {
              madeOf: async (captureId: string) =>
                (await Promise.all(evidencePrefixes(captureId).map((p) => artifacts.list(p)))).flat(),
            }
          : {}),
        onProblem: (p) => {
          if (findings.length < MAX_RECORDED_FINDINGS)
            findings.push({
              kind: p.status,
              message: `${p.artifact} of capture ${p.captureId} (tenant ${p.tenantId}, LEDGER sequence ${p.seq}), object ${p.object}, is ${p.status}${p.detail ? `: ${p.detail}` : ''}`,
            });
          return io.stdout(jsonLine(p));
        },
      });
      const complete = await run.finish(tally);
      const problems = tally.missing + tally.corrupt;
      const covered =
        `LEDGER sequences ${fromSeq}..${complete ? untilSeq : tally.lastSeq}${complete ? '' : ` of ..${untilSeq} (stopped)`}: ` +
        `${tally.artifacts} artifacts of ${tally.captures} captures, ${tally.ok} whole, ${tally.missing} missing, ${tally.corrupt} corrupt`;
      const recorded = checkResult('storage-verify', started, new Date(), findings, covered, 'cli');
      await recordCheck(session, io, { ...recorded, ok: problems === 0, findingCount: problems });
      run.noteResume(tally);
      return tally.missing + tally.corrupt > 0 ? EXIT_FAILURE : EXIT_OK;
    } finally {
      await session.close();
    }
  },
};

/** The JetStream object store of the service's nats-server; says so when that server has none. */
export async function jetstreamStore(session: CliSession): Promise<ArtifactStore> {
  const { js, jsm } = await session.nats();
  await whileNatsUnavailable(() => jsm.streams.info('OBJ_artifacts'), { budgetMs: 120_000 }).catch((err: unknown) => {
    if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
    throw new CliError(
      'the nats-server has no artifacts store (OBJ_artifacts)',
      "Point NATS_URL at the service's nats-server.",
    );
  });
  return artifactStoreOver(js, jsm);
}

/** The S3 settings of the session (S3_*), whether or not ARTIFACT_STORE=s3 yet (migrate runs before the switch). */
export function s3SettingsOf(session: CliSession): S3Settings {
  try {
    const settings = storageSettings({ ...session.config, ARTIFACT_STORE: 's3' });
    if (settings.kind !== 's3') throw new Error('unreachable');
    return settings;
  } catch (err) {
    throw new CliError((err as Error).message, 'Set S3_ENDPOINT, S3_BUCKET and the credentials (docs/storage.md).');
  }
}

/**
 * The S3 store of the session's settings; `create`: make the bucket (with Object Lock) when absent, and refuse one
 * that cannot lock objects when retention is configured (as the service does at start).
 */
export async function s3Store(session: CliSession, create: boolean): Promise<ArtifactStore> {
  const settings = s3SettingsOf(session);
  const requireLock =
    create && (defaultRetentionDays(session.config) > 0 || (await anyTenantRetention(await session.pool())));
  try {
    return await openS3ArtifactStore(settings, { createBucket: create, outageWaitMs: 120_000, requireLock });
  } catch (err) {
    throw new CliError(
      `cannot open S3 bucket ${settings.bucket} at ${settings.endpoint ?? 'AWS S3'}: ${(err as Error).message}`,
      'Check S3_ENDPOINT, S3_BUCKET and the credentials (docs/storage.md).',
    );
  }
}

/** The store the session's configuration names (ARTIFACT_STORE). */
export async function configuredStore(session: CliSession): Promise<ArtifactStore> {
  return session.config.ARTIFACT_STORE === 's3' ? s3Store(session, false) : jetstreamStore(session);
}
