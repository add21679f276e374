import type pg from 'pg';
import type { SnapshotStore } from '../../actors/snapshot-store.js';
import type { EventStore } from '../../ledger/event-store.js';
import { readCheckpoint } from '../../projector/projector.js';
import { auditSnapshot, type SnapshotAuditReport } from './snapshot-audit.js';
import { readTenantReadModelRows } from '../../../projections/read-models/index.js';
import {
  checkChain,
  compareProjection,
  type Divergence,
  type Expected,
  foldExpected,
  type ProjectionRows,
  sortDivergences,
} from './tenant-audit-model.js';

/**
 * `audit --tenant T`: read the tenant's subject from a stream (LEDGER, or a copy of it: both injectable),
 * read the tenant's projection rows in one consistent snapshot, and compare (tenant-audit-model.ts).
 */

export interface TenantAuditOptions {
  store: EventStore;
  subject: string;
  /** A pool on the projection schema to compare with. */
  pool: pg.Pool;
  tenantId: string;
  /**
   * True when `store`/`subject` is the stream the projection was built from (LEDGER): then stream sequences
   * and the projection's checkpoint are comparable. False for a copy (other sequences).
   */
  projectedStream: boolean;
  /** The actor snapshots to check against the fold (only meaningful on LEDGER itself); null: none to check. */
  snapshots?: SnapshotStore | null;
}

export interface TenantAuditReport {
  tenantId: string;
  subject: string;
  ok: boolean;
  events: number;
  commits: number;
  firstSeq: number | null;
  lastSeq: number | null;
  headHash: string | null;
  /** The projection's checkpoint: events above it were chain-checked but not compared. */
  checkpoint: number;
  compared: number;
  chainOnly: number;
  /** How the compared prefix of the log was chosen (see auditTenant). */
  cut: 'projection head' | 'checkpoint' | 'whole log';
  counts: {
    keys: number;
    keysRevoked: number;
    captures: Record<'pending' | 'complete' | 'failed', number>;
    usagePeriods: number;
    webhooks: number;
    webhooksDeleted: number;
    schedules: number;
    schedulesDeleted: number;
  };
  /** The tenant actor's snapshot checked against the fold; null when not checked (a copy of the log). */
  snapshot: SnapshotAuditReport | null;
  /** Sorted: earliest event first. */
  divergences: Divergence[];
}

async function readProjection(pool: pg.Pool, tenantId: string): Promise<{ checkpoint: number; rows: ProjectionRows }> {
  const client = await pool.connect();
  try {
    // One snapshot: the checkpoint and the rows agree with each other even while the projector runs.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const checkpoint = await readCheckpoint(client);
    // Each read model's own audit query (projections/read-models, READ_MODELS).
    const rows: ProjectionRows = await readTenantReadModelRows(client, tenantId);
    await client.query('COMMIT');
    return { checkpoint, rows };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

export async function auditTenant(opts: TenantAuditOptions): Promise<TenantAuditReport> {
  // Projection first: events appended after this snapshot are then all above its checkpoint.
  const { checkpoint, rows } = await readProjection(opts.pool, opts.tenantId);
  const events = await opts.store.readSubject(opts.subject);
  const chain = checkChain(opts.tenantId, events);
  // Compare the prefix the projection has applied: through the event the tenant row names as its head (the
  // per-tenant cut, valid for copies too); when the log has no such event (it was rewritten, or the row is
  // missing), through the checkpoint on the projected stream, else the whole copy.
  const headAt = rows.tenants ? events.findIndex((e) => e.event.hash === rows.tenants!.last_hash) : -1;
  const cut: TenantAuditReport['cut'] =
    headAt >= 0 ? 'projection head' : opts.projectedStream ? 'checkpoint' : 'whole log';
  const compared =
    headAt >= 0
      ? events.slice(0, headAt + 1)
      : opts.projectedStream
        ? events.filter((e) => e.seq <= checkpoint)
        : events;
  const expected: Expected = foldExpected(opts.tenantId, compared);
  const snapshot =
    opts.snapshots && opts.projectedStream
      ? auditSnapshot(opts.tenantId, await opts.snapshots.get(opts.tenantId), events)
      : null;
  const divergences = sortDivergences([
    ...chain,
    ...compareProjection(expected, rows),
    ...(snapshot?.divergences ?? []),
  ]);
  const statuses = { pending: 0, complete: 0, failed: 0 };
  for (const c of expected.folds.captures.captures.values()) statuses[c.value.status]++;
  const webhooks = [...expected.folds.webhooks.webhooks.values()];
  const schedules = [...expected.folds.schedules.schedules.values()];
  return {
    tenantId: opts.tenantId,
    subject: opts.subject,
    ok: divergences.length === 0,
    events: events.length,
    commits: new Set(events.map((e) => e.seq)).size,
    firstSeq: events[0]?.seq ?? null,
    lastSeq: events.at(-1)?.seq ?? null,
    headHash: events.at(-1)?.event.hash ?? null,
    checkpoint,
    compared: compared.length,
    chainOnly: events.length - compared.length,
    cut,
    snapshot: snapshot?.report ?? null,
    counts: {
      keys: expected.state.keys.size,
      keysRevoked: [...expected.state.keys.values()].filter((k) => k.revokedAt !== null).length,
      captures: statuses,
      usagePeriods: expected.folds.usage.usage.size,
      webhooks: webhooks.length,
      webhooksDeleted: webhooks.filter((w) => w.value.deleted_at !== null).length,
      schedules: schedules.length,
      schedulesDeleted: schedules.filter((s) => s.value.deleted_at !== null).length,
    },
    divergences,
  };
}
