import type { EventStore } from '../ledger/event-store.js';
import { whileNatsUnavailable } from '../infra/nats-unavailable.js';
import type { CliIo } from './cli-io.js';
import { intOpt, type ParsedArgs } from './command-spec.js';
import { jsonLine } from './output-format.js';
import { createProgress } from './progress.js';

/**
 * A command that walks the LEDGER stream from --from to --until (`storage verify`, `storage migrate`): its range,
 * a progress bar on stderr while it walks, then a summary line on stdout and, when stopped, the --from to resume
 * with on stderr.
 */
export interface LedgerWalkRun {
  fromSeq: number;
  untilSeq: number;
  /** What the walk itself is given: its range, where to report progress, and the signal that stops it. */
  walk: { fromSeq: number; untilSeq: number; onProgress(seq: number): void; signal?: AbortSignal };
  /** Ends the progress bar and prints the summary line; whether the whole range was walked. */
  finish(tally: { lastSeq: number }): Promise<boolean>;
  /** When stopped before the end: on stderr, the command that resumes the walk. */
  noteResume(tally: { lastSeq: number }): void;
}

/** The walk's --from and --until, read before anything is opened (a usage error first). */
export function ledgerWalkRange(args: ParsedArgs): { fromSeq: number; untilSeq: number | undefined } {
  return {
    fromSeq: intOpt(args, 'from', 1, Number.MAX_SAFE_INTEGER) ?? 1,
    untilSeq: intOpt(args, 'until', 1, Number.MAX_SAFE_INTEGER),
  };
}

export async function startLedgerWalk(
  io: CliIo,
  range: { fromSeq: number; untilSeq: number | undefined },
  events: EventStore,
  command: 'storage verify' | 'storage migrate',
): Promise<LedgerWalkRun> {
  const { fromSeq } = range;
  // Run just after a restart: an election under way is waited through, not reported as a missing store.
  const untilSeq = range.untilSeq ?? (await whileNatsUnavailable(() => events.lastSeq(), { budgetMs: 120_000 }));
  const progress = createProgress(io, { label: command, unit: 'seq', from: fromSeq - 1, total: untilSeq });
  return {
    fromSeq,
    untilSeq,
    walk: {
      fromSeq,
      untilSeq,
      onProgress: (seq) => progress.update(seq),
      ...(io.signal ? { signal: io.signal } : {}),
    },
    async finish(tally) {
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
      return complete;
    },
    noteResume(tally) {
      if (tally.lastSeq < untilSeq)
        io.stderr(`stopped; resume with: capture-ledger ${command} --from ${tally.lastSeq + 1}\n`);
    },
  };
}
