import type { JetStreamClient } from '@nats-io/jetstream';
import pg from 'pg';
import type { Logger } from 'pino';
import { applyEvent } from '../../projections/read-models/index.js';
import { migrate, quoteIdent } from '../../projections/migrate.js';
import { createPool, LIVE_SCHEMA } from '../infra/postgres.js';
import type { EventStore } from '../ledger/event-store.js';
import { createProjector, PROJECTOR_NAME } from './projector.js';

/**
 * `projections rebuild` (DESIGN decision 4): replay the whole log into a fresh schema, then swap it in for
 * the live one without losing or double-applying an event, even while live projectors keep running.
 *
 * The swap is one transaction that
 *   1. takes an EXCLUSIVE lock on the live `projector_checkpoint` table — every projector batch writes that
 *      table first, so no batch can commit until we do (plain reads, e.g. API read-your-writes waits, go on);
 *   2. reads the live checkpoint L and applies the events between the new schema's checkpoint and L to the
 *      new schema (so it holds exactly what the live one holds);
 *   3. renames `projection` → `projection_old_<ts>` and the new schema → `projection`.
 * Every process connects with `search_path=projection` (a name, resolved per statement), so API reads and the
 * live projectors' next statements land in the new schema, whose checkpoint is L: a projector resumes from the
 * checkpoint it left, with no gap and no double-apply. Afterwards we catch the new schema up with what was
 * appended meanwhile (harmless when a live projector does it too: the checkpoint row lock serialises them).
 */

export interface RebuildProgress {
  phase: 'replay' | 'catch-up' | 'switch' | 'after-switch';
  seq: number;
  target: number;
}

export interface RebuildOptions {
  js: JetStreamClient;
  store: EventStore;
  databaseUrl: string;
  log: Logger;
  /** The schema that is swapped out; default `projection`. */
  liveSchema?: string;
  /** Build and catch up only; leave the new schema beside the live one. */
  switchOver?: boolean;
  now?: () => Date;
  batchSize?: number;
  onProgress?: (p: RebuildProgress) => void;
  /** Longest wait for the live checkpoint lock (a projector batch in flight), ms. */
  lockTimeoutMs?: number;
  /** Test hook: runs after the catch-up, just before the switch transaction. */
  beforeSwitch?: () => Promise<void>;
}

export interface RebuildResult {
  /** The rebuilt schema's name while it was built. */
  builtSchema: string;
  /** Where the previous live schema went (null when not switched or when there was none). */
  oldSchema: string | null;
  switched: boolean;
  /** The stream's last sequence when the replay started: the replay's target. */
  replayedTo: number;
  /** Events applied by the replay phase. */
  replayedEvents: number;
  /** The live checkpoint at the switch (null when not switched or there was no live schema). */
  liveCheckpointAtSwitch: number | null;
  /** Events applied inside the switch transaction, while projector batches waited. */
  appliedInSwitch: number;
  /** Set when the switch committed but catching up afterwards failed (a running projector will). */
  afterSwitchError: string | null;
  /** The new live schema's checkpoint when the command finished. */
  checkpoint: number;
  replayMs: number;
  totalMs: number;
}

/** `20250301t120501123z`: a schema-name-safe UTC timestamp to the millisecond. */
export const schemaStamp = (d: Date): string => d.toISOString().replace(/[-:.]/g, '').toLowerCase();

export async function rebuildProjection(opts: RebuildOptions): Promise<RebuildResult> {
  const started = Date.now();
  const live = opts.liveSchema ?? LIVE_SCHEMA;
  const stamp = schemaStamp((opts.now ?? (() => new Date()))());
  const built = `${live}_rebuild_${stamp}`;
  const old = `${live}_old_${stamp}`;
  const progress = opts.onProgress ?? (() => undefined);
  const admin = new pg.Pool({ connectionString: opts.databaseUrl, max: 2 });
  admin.on('error', () => undefined);
  const pool = createPool(opts.databaseUrl, built, 4);
  pool.on('error', () => undefined);
  let keepBuilt = false;
  try {
    const exists = await admin.query('SELECT 1 FROM pg_namespace WHERE nspname = ANY($1)', [[built, old]]);
    if (exists.rowCount) throw new Error(`schema ${built} or ${old} already exists; run the rebuild again`);
    await migrate(pool, built);

    const target = await opts.store.lastSeq();
    let replayedEvents = 0;
    const replayer = createProjector({
      js: opts.js,
      pool,
      log: opts.log,
      batchSize: opts.batchSize ?? 1000,
      beforeCommit: async (b) => void (replayedEvents += b.length),
    });
    replayer.events.on('checkpoint', (seq: number) => progress({ phase: 'replay', seq, target }));
    await replayer.catchUp(target);
    const replayMs = Date.now() - started;

    await closeDistance(opts, admin, pool, built, target);

    if (opts.switchOver === false) {
      keepBuilt = true;
      return {
        builtSchema: built,
        oldSchema: null,
        switched: false,
        replayedTo: target,
        replayedEvents,
        liveCheckpointAtSwitch: null,
        appliedInSwitch: 0,
        afterSwitchError: null,
        checkpoint: await checkpointOf(admin, built),
        replayMs,
        totalMs: Date.now() - started,
      };
    }

    await opts.beforeSwitch?.();
    const liveAtSwitch = await switchSchemas(admin, opts.store, {
      live,
      built,
      old,
      lockTimeoutMs: opts.lockTimeoutMs ?? 60_000,
    });
    keepBuilt = true;
    progress({ phase: 'switch', seq: liveAtSwitch.liveCheckpoint ?? 0, target });

    const afterSwitchError = await catchUpAfterSwitch(opts, live);
    return {
      builtSchema: built,
      oldSchema: liveAtSwitch.liveCheckpoint === null ? null : old,
      switched: true,
      replayedTo: target,
      replayedEvents,
      liveCheckpointAtSwitch: liveAtSwitch.liveCheckpoint,
      appliedInSwitch: liveAtSwitch.applied,
      afterSwitchError,
      checkpoint: await checkpointOf(admin, live),
      replayMs,
      totalMs: Date.now() - started,
    };
  } finally {
    await pool.end().catch(() => undefined);
    if (!keepBuilt) {
      // A failed or interrupted rebuild leaves nothing behind; the live schema was never touched.
      await admin.query(`DROP SCHEMA IF EXISTS ${quoteIdent(built)} CASCADE`).catch(() => undefined);
    }
    await admin.end().catch(() => undefined);
  }
}

/**
 * Close the distance to the stream's end outside the lock, so the locked step stays short. Bounded: when appends
 * outpace us, the rest is applied inside the switch (projectors wait that long).
 */
async function closeDistance(
  opts: RebuildOptions,
  admin: pg.Pool,
  pool: pg.Pool,
  built: string,
  target: number,
): Promise<void> {
  const progress = opts.onProgress ?? (() => undefined);
  const catchUp = createProjector({ js: opts.js, pool, log: opts.log, batchSize: opts.batchSize ?? 1000 });
  let roundEnd = target;
  catchUp.events.on('checkpoint', (seq: number) => progress({ phase: 'catch-up', seq, target: roundEnd }));
  for (let round = 0; round < 5; round++) {
    roundEnd = await opts.store.lastSeq();
    if (roundEnd - (await checkpointOf(admin, built)) <= 100) break;
    await catchUp.catchUp(roundEnd);
  }
}

/** Now live under the live name: catch up with what was appended meanwhile; null, or why that failed. */
async function catchUpAfterSwitch(opts: RebuildOptions, live: string): Promise<string | null> {
  const progress = opts.onProgress ?? (() => undefined);
  const livePool = createPool(opts.databaseUrl, live, 2);
  livePool.on('error', () => undefined);
  try {
    const after = createProjector({ js: opts.js, pool: livePool, log: opts.log, batchSize: opts.batchSize ?? 1000 });
    const end = await opts.store.lastSeq();
    after.events.on('checkpoint', (seq: number) => progress({ phase: 'after-switch', seq, target: end }));
    await after.catchUp(end);
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await livePool.end().catch(() => undefined);
  }
}

async function checkpointOf(q: Pick<pg.Pool, 'query'>, schema: string): Promise<number> {
  const r = await q.query<{ seq: string }>(
    `SELECT seq FROM ${quoteIdent(schema)}.projector_checkpoint WHERE name = $1`,
    [PROJECTOR_NAME],
  );
  return Number(r.rows[0]?.seq ?? 0);
}

/** The atomic swap (see the file comment). Returns the live checkpoint it found, null when there was no live schema. */
async function switchSchemas(
  admin: pg.Pool,
  store: EventStore,
  s: { live: string; built: string; old: string; lockTimeoutMs: number },
): Promise<{ liveCheckpoint: number | null; applied: number }> {
  const client = await admin.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(s.lockTimeoutMs))}`);
    const hasLive = (
      await client.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [
        `${quoteIdent(s.live)}.projector_checkpoint`,
      ])
    ).rows[0]!.t;
    let liveCheckpoint: number | null = null;
    let applied = 0;
    if (hasLive) {
      await client.query(`LOCK TABLE ${quoteIdent(s.live)}.projector_checkpoint IN EXCLUSIVE MODE`);
      liveCheckpoint = await checkpointOf(client, s.live);
      const builtCheckpoint = await checkpointOf(client, s.built);
      if (builtCheckpoint < liveCheckpoint) {
        // Same transaction, new schema: apply exactly (builtCheckpoint, liveCheckpoint].
        await client.query(`SET LOCAL search_path TO ${quoteIdent(s.built)}`);
        applied = await store.replay(builtCheckpoint + 1, (e) => applyEvent(client, e), liveCheckpoint);
        await client.query(
          `INSERT INTO ${quoteIdent(s.built)}.projector_checkpoint (name, seq) VALUES ($1, $2)
           ON CONFLICT (name) DO UPDATE SET seq = EXCLUDED.seq`,
          [PROJECTOR_NAME, liveCheckpoint],
        );
      }
      await client.query(`ALTER SCHEMA ${quoteIdent(s.live)} RENAME TO ${quoteIdent(s.old)}`);
    }
    await client.query(`ALTER SCHEMA ${quoteIdent(s.built)} RENAME TO ${quoteIdent(s.live)}`);
    await client.query('COMMIT');
    return { liveCheckpoint, applied };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
