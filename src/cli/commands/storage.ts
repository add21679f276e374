import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { artifactStoreOver } from '../../capture/artifact-store.js';
import { checkStoredEvidence } from '../../capture/stored-evidence-check.js';
import { whileNatsUnavailable } from '../../infra/nats-unavailable.js';
import { type CheckFinding, checkResult, MAX_RECORDED_FINDINGS } from '../../application/operator-checks.js';
import { recordCheck } from '../check-record.js';
import { CliError, EXIT_FAILURE, EXIT_OK } from '../cli-io.js';
import { openSession } from '../cli-session.js';
import { type CommandSpec, intOpt } from '../command-spec.js';
import { jsonLine } from '../output-format.js';
import { createProgress } from '../progress.js';

/** `storage verify`: is every artifact the ledger names still stored, whole? (issue 26; docs/operators.md) */
export const storageVerify: CommandSpec = {
  path: ['storage', 'verify'],
  summary:
    'Read every artifact the ledger names back from storage and check its digest; name each missing or corrupt one.',
  description: `
Walks the LEDGER stream and, for every capture.completed event, reads each object its artifacts name
(screenshots, HTML, headers, PDF, provenance record, WACZ bundle) from the artifacts store in full and checks
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
    const fromSeq = intOpt(args, 'from', 1, Number.MAX_SAFE_INTEGER) ?? 1;
    const session = openSession(io);
    try {
      const events = await session.store();
      const { js, jsm } = await session.nats();
      // Run just after a restart: an election under way is waited through, not reported as a missing store.
      const patiently = <T>(work: () => Promise<T>) => whileNatsUnavailable(work, { budgetMs: 120_000 });
      await patiently(() => jsm.streams.info('OBJ_artifacts')).catch((err: unknown) => {
        if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
        throw new CliError(
          'the nats-server has no artifacts store (OBJ_artifacts)',
          "Point NATS_URL at the service's nats-server.",
        );
      });
      const untilSeq = intOpt(args, 'until', 1, Number.MAX_SAFE_INTEGER) ?? (await patiently(() => events.lastSeq()));
      const progress = createProgress(io, { label: 'storage verify', unit: 'seq', from: fromSeq - 1, total: untilSeq });
      const started = new Date();
      const findings: CheckFinding[] = [];
      const tally = await checkStoredEvidence({
        events,
        artifacts: artifactStoreOver(js, jsm),
        fromSeq,
        untilSeq,
        onProblem: (p) => {
          if (findings.length < MAX_RECORDED_FINDINGS)
            findings.push({
              kind: p.status,
              message: `${p.artifact} of capture ${p.captureId} (tenant ${p.tenantId}, LEDGER sequence ${p.seq}), object ${p.object}, is ${p.status}${p.detail ? `: ${p.detail}` : ''}`,
            });
          return io.stdout(jsonLine(p));
        },
        onProgress: (seq) => progress.update(seq),
        ...(io.signal ? { signal: io.signal } : {}),
      });
      progress.finish();
      const complete = tally.lastSeq >= untilSeq;
      await io.stdout(
        jsonLine({
          summary: {
            ...tally,
            fromSeq,
            untilSeq,
            complete,
            ...(complete ? {} : { resumeWith: `--from ${tally.lastSeq + 1}` }),
          },
        }),
      );
      const problems = tally.missing + tally.corrupt;
      const covered =
        `LEDGER sequences ${fromSeq}..${complete ? untilSeq : tally.lastSeq}${complete ? '' : ` of ..${untilSeq} (stopped)`}: ` +
        `${tally.artifacts} artifacts of ${tally.captures} captures, ${tally.ok} whole, ${tally.missing} missing, ${tally.corrupt} corrupt`;
      const recorded = checkResult('storage-verify', started, new Date(), findings, covered, 'cli');
      await recordCheck(session, io, { ...recorded, ok: problems === 0, findingCount: problems });
      if (!complete) io.stderr(`stopped; resume with: capture-ledger storage verify --from ${tally.lastSeq + 1}\n`);
      return tally.missing + tally.corrupt > 0 ? EXIT_FAILURE : EXIT_OK;
    } finally {
      await session.close();
    }
  },
};
