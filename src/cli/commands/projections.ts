import pino from 'pino';
import { quoteIdent } from '../../../projections/migrate.js';
import { LIVE_SCHEMA } from '../../infra/postgres.js';
import type { EventStore } from '../../ledger/event-store.js';
import { rebuildProjection, type RebuildProgress } from '../../projector/projection-rebuild.js';
import { CliError, EXIT_FAILURE, EXIT_OK } from '../cli-io.js';
import { openSession } from '../cli-session.js';
import { type CommandSpec, flagOpt, intOpt, stringOpt } from '../command-spec.js';
import { createProgress, type Progress } from '../progress.js';
import { duration, jsonLine, table } from '../output-format.js';

/** `projections status` and `projections rebuild` (DESIGN decision 4; procedure in docs/operators.md). */

export interface ProjectionStatus {
  schema: string;
  role: 'live' | 'rebuild' | 'old' | 'other';
  projector: string;
  checkpoint: number;
  streamLastSeq: number;
  /** Stream sequences (commits) not yet applied. */
  lagCommits: number;
  /** Events not yet applied (a commit holds one or more); null when the lag is too large to count quickly. */
  lagEvents: number | null;
}

const COUNT_LIMIT = 10_000;

const roleOf = (schema: string): ProjectionStatus['role'] =>
  schema === LIVE_SCHEMA
    ? 'live'
    : schema.startsWith(`${LIVE_SCHEMA}_rebuild_`)
      ? 'rebuild'
      : schema.startsWith(`${LIVE_SCHEMA}_old_`)
        ? 'old'
        : 'other';

async function countEvents(store: EventStore, fromSeq: number, untilSeq: number): Promise<number> {
  let n = 0;
  await store.replay(fromSeq, () => void n++, untilSeq);
  return n;
}

export const projectionsStatus: CommandSpec = {
  path: ['projections', 'status'],
  summary: "Show each projection schema: its checkpoint, the stream's last sequence and the lag.",
  description: `
Lists every schema of this database that holds a projector checkpoint: the live one ('${LIVE_SCHEMA}'),
rebuilds in progress or kept (${LIVE_SCHEMA}_rebuild_*) and previous live schemas kept after a rebuild
(${LIVE_SCHEMA}_old_*). The lag is counted in stream sequences (commits) and, when it is at most
${COUNT_LIMIT} commits, in events (a commit carries one or more events).`,
  options: {
    format: { type: 'string', value: 'FORMAT', help: 'output format', choices: ['table', 'json'], default: 'table' },
    'max-lag': {
      type: 'string',
      value: 'N',
      help: 'exit 1 when the live projection lags by more than N commits (for monitoring)',
    },
  },
  examples: ['capture-ledger projections status', 'capture-ledger projections status --format json --max-lag 1000'],
  async run(args, io) {
    const maxLag = intOpt(args, 'max-lag', 0, Number.MAX_SAFE_INTEGER);
    const session = openSession(io);
    try {
      const pool = await session.pool();
      const store = await session.store();
      const last = await store.lastSeq();
      const schemas = (
        await pool.query<{ schema: string }>(
          `SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'projector_checkpoint' ORDER BY table_schema`,
        )
      ).rows.map((r) => r.schema);
      const rows: ProjectionStatus[] = [];
      for (const schema of schemas) {
        const cps = await pool.query<{ name: string; seq: number }>(
          `SELECT name, seq FROM ${quoteIdent(schema)}.projector_checkpoint ORDER BY name`,
        );
        const entries = cps.rows.length ? cps.rows : [{ name: '(none yet)', seq: 0 }];
        for (const cp of entries) {
          const lag = Math.max(0, last - cp.seq);
          rows.push({
            schema,
            role: roleOf(schema),
            projector: cp.name,
            checkpoint: cp.seq,
            streamLastSeq: last,
            lagCommits: lag,
            lagEvents: lag === 0 ? 0 : lag <= COUNT_LIMIT ? await countEvents(store, cp.seq + 1, last) : null,
          });
        }
      }
      if (stringOpt(args, 'format') === 'json') await io.stdout(jsonLine({ streamLastSeq: last, projections: rows }));
      else {
        await io.stdout(
          table(
            ['schema', 'role', 'projector', 'checkpoint', 'stream_last_seq', 'lag_commits', 'lag_events'],
            rows.map((r) => [
              r.schema,
              r.role,
              r.projector,
              r.checkpoint,
              r.streamLastSeq,
              r.lagCommits,
              r.lagEvents ?? `>=${r.lagCommits}`,
            ]),
          ),
        );
      }
      const liveRow = rows.find((r) => r.role === 'live');
      if (maxLag !== undefined && (!liveRow || liveRow.lagCommits > maxLag)) {
        io.stderr(`live projection lag ${liveRow ? liveRow.lagCommits : 'unknown'} exceeds --max-lag ${maxLag}\n`);
        return EXIT_FAILURE;
      }
      return EXIT_OK;
    } finally {
      await session.close();
    }
  },
};

export const projectionsRebuild: CommandSpec = {
  path: ['projections', 'rebuild'],
  summary: `Rebuild the projection from sequence 1 into a fresh schema and swap it in atomically.`,
  description: `
Replays the LEDGER stream into ${LIVE_SCHEMA}_rebuild_<timestamp> (progress bar and ETA on stderr), catches
it up, then in one transaction locks the live checkpoint table (projector batches wait, reads go on), applies
the events between the two checkpoints, renames ${LIVE_SCHEMA} to ${LIVE_SCHEMA}_old_<timestamp> and the new
schema to ${LIVE_SCHEMA}, and finally catches up with events appended meanwhile. Running API processes and
projectors may stay up: they address the schema by name (search_path), so they continue in the new one from
the checkpoint they left. The old schema is kept for comparison; drop it when satisfied. Prints a JSON
summary on stdout.`,
  options: {
    'no-switch': { type: 'boolean', help: `build and catch up only; keep the new schema beside ${LIVE_SCHEMA}` },
    'batch-size': { type: 'string', value: 'N', help: 'events per projection transaction', default: '1000' },
  },
  examples: ['capture-ledger projections rebuild', 'capture-ledger projections rebuild --no-switch'],
  async run(args, io) {
    const batchSize = intOpt(args, 'batch-size', 1, 100_000)!;
    const session = openSession(io);
    try {
      const store = await session.store();
      const { js } = await session.nats();
      const databaseUrl = await session.databaseUrl();
      // One bar per phase and target (the catch-up rounds each chase a new stream end).
      let bar: Progress | null = null;
      let shown = '';
      const onProgress = (p: RebuildProgress) => {
        if (p.phase === 'switch') {
          bar?.finish();
          bar = null;
          shown = 'switch';
          io.stderr(`switched: ${LIVE_SCHEMA} now serves the rebuilt schema (live checkpoint was ${p.seq})\n`);
          return;
        }
        if (`${p.phase}:${p.target}` !== shown) {
          bar?.finish();
          shown = `${p.phase}:${p.target}`;
          bar = createProgress(io, {
            label: p.phase,
            unit: 'seq',
            from: p.phase === 'replay' ? 0 : p.seq,
            total: p.target,
          });
        }
        bar!.update(p.seq);
      };
      io.stderr(`rebuilding the projection from sequence 1 of ${await store.lastSeq()}\n`);
      let result;
      try {
        result = await rebuildProjection({
          js,
          store,
          databaseUrl,
          log: pino({ level: 'silent' }),
          switchOver: !flagOpt(args, 'no-switch'),
          batchSize,
          onProgress,
        });
      } catch (err) {
        throw new CliError(
          `rebuild failed: ${(err as Error).message}`,
          `The live schema '${LIVE_SCHEMA}' was not changed; fix the cause and run the rebuild again.`,
        );
      }
      (bar as Progress | null)?.finish();
      if (result.afterSwitchError) {
        await io.stdout(jsonLine(result));
        throw new CliError(
          `switched over, but catching up afterwards failed: ${result.afterSwitchError}`,
          `${LIVE_SCHEMA} already serves the rebuilt schema; a running projector catches up by itself (check \`capture-ledger projections status\`).`,
        );
      }
      const eventsPerSec = result.replayMs > 0 ? Math.round((result.replayedEvents * 1000) / result.replayMs) : null;
      io.stderr(
        result.switched
          ? `done in ${duration(result.totalMs / 1000)}: ${result.replayedEvents} events replayed (${eventsPerSec ?? '?'} events/s); ` +
              `${result.oldSchema ? `previous live schema kept as ${result.oldSchema} (drop it with: DROP SCHEMA ${result.oldSchema} CASCADE)` : 'there was no previous live schema'}\n`
          : `done: ${result.builtSchema} is built at checkpoint ${result.checkpoint}; ${LIVE_SCHEMA} is unchanged\n`,
      );
      await io.stdout(jsonLine({ ...result, eventsPerSec }));
      return EXIT_OK;
    } finally {
      await session.close();
    }
  },
};
