import type { FailureReason } from '../../src/domain/failure-reason.js';
import type { ArtifactRefs, BundleRef, CaptureRender, CaptureSettings } from '../../src/domain/events.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import type { TenantState } from '../../src/domain/tenant/index.js';
import {
  type BatchHandoff,
  type EventHandoff,
  type EventRef,
  type ExpectedRow,
  auditedReadModel,
  type SettledCapture,
  type Sql,
  type TableComparison,
  type TenantEnvelope,
  type TenantEventType,
} from './read-model.js';
import type { CaptureStatusFields } from './capture-view.js';
import {
  type AddChange,
  addRows,
  CounterDeltas,
  type FoldedRows,
  foldChange,
  type InsertChange,
  insertRows,
  tableSpec,
  type UpdateChange,
  updateRows,
} from './row-changes.js';

/**
 * `captures` (one row per capture: pending, then complete or failed by its first outcome) and `capture_counts`
 * (per tenant and status, so a list's total is one row read). What each event does to the rows is said once
 * (`captureChanges`, `countChanges`); the writer and the fold carry that out (row-changes.ts). The hot path
 * of the projector: a batch's submissions and outcomes are written with three set-based statements in
 * `flush`. The outcomes that found their capture pending are handed on (SettledCapture): usage and schedules
 * count those.
 */

const CAPTURES_HANDLES: readonly TenantEventType[] = ['capture.submitted', 'capture.completed', 'capture.failed'];

export type CaptureStatus = 'pending' | 'complete' | 'failed';

/** A row of `captures`. */
export interface CaptureRow {
  capture_id: string;
  tenant_id: string;
  url: string;
  status: CaptureStatus;
  created_at: Date;
  completed_at: Date | null;
  failed_at: Date | null;
  render_quality: 'full' | 'partial' | null;
  render: CaptureRender | null;
  artifacts: ArtifactRefs | null;
  bundle: BundleRef | null;
  capture_settings: CaptureSettings | null;
  error: string | null;
  retryable: boolean | null;
  failure_reason: FailureReason | null;
  schedule_id: string | null;
  stored_bytes: number | null;
  /** Migration 009; null for captures completed before it was recorded. */
  final_url: string | null;
}

/** A `captures` row as the events give it (timestamps as ISO text): what the definition writes and the fold holds. */
export type CaptureValues = {
  capture_id: string;
  tenant_id: string;
  url: string;
  status: CaptureStatus;
  period: string;
  created_at: string;
  schedule_id: string | null;
  source: string;
  completed_at: string | null;
  failed_at: string | null;
  render_quality: 'full' | 'partial' | null;
  render: CaptureRender | null;
  artifacts: ArtifactRefs | null;
  bundle: BundleRef | null;
  capture_settings: CaptureSettings | null;
  stored_bytes: number | null;
  attempts: number | null;
  error: string | null;
  retryable: boolean | null;
  failure_reason: FailureReason | null;
  final_url: string | null;
};

export const CAPTURES = tableSpec<CaptureValues>({
  name: 'captures',
  key: ['capture_id'],
  columns: {
    capture_id: 'text',
    tenant_id: 'text',
    url: 'text',
    status: 'text',
    period: 'text',
    created_at: 'timestamptz',
    schedule_id: 'text',
    source: 'text',
    completed_at: 'timestamptz',
    failed_at: 'timestamptz',
    render_quality: 'text',
    render: 'jsonb',
    artifacts: 'jsonb',
    bundle: 'jsonb',
    capture_settings: 'jsonb',
    stored_bytes: 'bigint',
    attempts: 'int',
    error: 'text',
    retryable: 'boolean',
    failure_reason: 'text',
    final_url: 'text',
  },
});

export type CaptureCountValues = { tenant_id: string; status: CaptureStatus; n: number };
export const CAPTURE_COUNTS = tableSpec<CaptureCountValues>({
  name: 'capture_counts',
  key: ['tenant_id', 'status'],
  columns: { tenant_id: 'text', status: 'text', n: 'bigint' },
  counters: ['n'],
});

// ---- what an event does to the rows (the one definition the writer and the fold carry out) -------------

/** An outcome settling its capture, with when it happened (what SettledCapture hands on). */
type Settle = UpdateChange<CaptureValues> & { occurredAt: string };
type CaptureChange = InsertChange<CaptureValues> | Settle;

/**
 * Every outcome sets every outcome column (the other outcome's to null), so completions and failures are
 * written by one statement.
 */
type OutcomeColumns = Pick<
  CaptureValues,
  | 'status'
  | 'completed_at'
  | 'failed_at'
  | 'render_quality'
  | 'render'
  | 'artifacts'
  | 'bundle'
  | 'capture_settings'
  | 'stored_bytes'
  | 'attempts'
  | 'error'
  | 'retryable'
  | 'failure_reason'
  | 'final_url'
>;

/**
 * A submission creates its captures pending. An outcome settles its capture only while it is pending: the
 * first outcome wins and a settled row is left alone (a late or duplicate outcome changes nothing, and is
 * not counted by usage or schedules). This is the read models' statement of the rule; the decider keeps its
 * own in its state (`src/domain/tenant/tenant-state.ts`: an outcome takes the capture out of `pending`, and
 * only a pending completion adds its bytes to the quota), and the audit checks the two agree capture by
 * capture (`compareProjection`: the row's pending against the actor's).
 */
export function captureChanges(e: TenantEnvelope): CaptureChange[] {
  switch (e.type) {
    case 'capture.submitted':
      return e.data.captures.map((c) => ({
        op: 'insert',
        row: {
          capture_id: c.captureId,
          tenant_id: e.tenantId,
          url: c.url,
          status: 'pending',
          period: e.data.period,
          created_at: e.occurredAt,
          schedule_id: e.data.scheduleId ?? null,
          source: e.data.source,
        },
      }));
    // Both outcomes spelled out in full (no spread of a template): this runs for every outcome of the hot path.
    case 'capture.completed': {
      const d = e.data;
      return [
        settle(d.captureId, e.occurredAt, {
          status: 'complete',
          completed_at: d.completedAt,
          failed_at: null,
          render_quality: d.renderQuality,
          render: d.render ?? null,
          artifacts: d.artifacts,
          bundle: d.bundle ?? null,
          capture_settings: d.captureSettings ?? null,
          stored_bytes: d.storedBytes,
          attempts: d.attempts,
          error: null,
          retryable: null,
          failure_reason: null,
          final_url: d.finalUrl ?? null,
        }),
      ];
    }
    case 'capture.failed': {
      const d = e.data;
      return [
        settle(d.captureId, e.occurredAt, {
          status: 'failed',
          completed_at: null,
          failed_at: d.failedAt,
          render_quality: null,
          render: null,
          artifacts: null,
          bundle: null,
          capture_settings: null,
          stored_bytes: null,
          attempts: d.attempts,
          error: d.error,
          retryable: d.retryable,
          failure_reason: d.failureReason ?? null,
          final_url: null,
        }),
      ];
    }
  }
  return [];
}

const settle = (captureId: string, occurredAt: string, set: OutcomeColumns): Settle => ({
  op: 'update',
  key: { capture_id: captureId },
  when: { status: 'pending' },
  set,
  occurredAt,
});

/** What a capture row moving from one status (null: none yet) to another does to the tenant's counts. */
const countChanges = (
  tenantId: string,
  from: CaptureStatus | null,
  to: CaptureStatus,
): Array<AddChange<CaptureCountValues>> => [
  ...(from ? [{ op: 'add' as const, key: { tenant_id: tenantId, status: from }, add: { n: -1 } }] : []),
  { op: 'add', key: { tenant_id: tenantId, status: to }, add: { n: 1 } },
];

/** A settled capture (its row after the outcome) as usage and schedules count it. */
const settledOf = (
  r: Pick<
    CaptureValues,
    'capture_id' | 'tenant_id' | 'period' | 'schedule_id' | 'status' | 'completed_at' | 'failed_at' | 'stored_bytes'
  >,
  occurredAt: string,
): SettledCapture => ({
  captureId: r.capture_id,
  tenantId: r.tenant_id,
  period: r.period,
  scheduleId: r.schedule_id,
  status: r.status === 'complete' ? 'complete' : 'failed',
  occurredAt,
  at: (r.status === 'complete' ? r.completed_at : r.failed_at)!,
  storedBytes: r.status === 'complete' ? (r.stored_bytes ?? 0) : 0,
});

// ---- batch writer ---------------------------------------------------------------------------------------

function createCapturesWriter(q: Sql) {
  const inserts: Array<InsertChange<CaptureValues>> = [];
  const settles: Settle[] = [];

  return {
    apply(stored: StoredEvent): void {
      for (const c of captureChanges(stored.event as TenantEnvelope)) {
        if (c.op === 'insert') inserts.push(c);
        else settles.push(c);
      }
    },

    /** Submissions first (an outcome in the same batch then finds its row), outcomes, then the counts; hands on the settled. */
    async flush(handoff: BatchHandoff): Promise<void> {
      const counts = new CounterDeltas(CAPTURE_COUNTS);
      const created = await insertRows<CaptureValues, Pick<CaptureValues, 'tenant_id'>>(
        q,
        CAPTURES,
        inserts.splice(0),
        ['tenant_id'],
      );
      for (const r of created) for (const c of countChanges(r.tenant_id, null, 'pending')) counts.add(c);
      const applied = await updateRows<
        CaptureValues,
        Settle,
        Pick<CaptureValues, 'tenant_id' | 'period' | 'schedule_id'>
      >(q, CAPTURES, settles.splice(0), ['tenant_id', 'period', 'schedule_id']);
      for (const { change, row } of applied) {
        const after = { ...row, ...(change.set as OutcomeColumns), capture_id: change.key.capture_id! };
        for (const c of countChanges(row.tenant_id, 'pending', after.status)) counts.add(c);
        handoff.settled.push(settledOf(after, change.occurredAt));
      }
      await addRows(q, CAPTURE_COUNTS, counts.take());
    },
  };
}

// ---- pure fold ------------------------------------------------------------------------------------------

function createCapturesFold() {
  const captures: FoldedRows<CaptureValues> = new Map();
  /** capture_counts by status; each row's ref is the event that last changed its count. */
  const counts: FoldedRows<CaptureCountValues> = new Map();
  return {
    captures,
    counts,
    /** Hands on the outcome that settled a pending capture, if this event is one. */
    apply(stored: StoredEvent, ref: EventRef, handoff: EventHandoff): void {
      for (const change of captureChanges(stored.event as TenantEnvelope)) {
        const row = foldChange(CAPTURES, captures, change, ref);
        if (!row) continue;
        for (const c of countChanges(row.tenant_id, change.op === 'insert' ? null : 'pending', row.status))
          foldChange(CAPTURE_COUNTS, counts, c, ref);
        if (change.op === 'update') handoff.settled = settledOf(row, change.occurredAt);
      }
    },
  };
}
export type CapturesFold = ReturnType<typeof createCapturesFold>;

// ---- queries --------------------------------------------------------------------------------------------

export async function findCapture(q: Sql, captureId: string): Promise<CaptureRow | null> {
  return (await q.query<CaptureRow>('SELECT * FROM captures WHERE capture_id = $1', [captureId])).rows[0] ?? null;
}

/**
 * The columns a status answer needs (spec 2.2), or null. A client polls this while its capture runs, so it
 * reads no JSON column.
 */
export async function findCaptureStatusFields(q: Sql, captureId: string): Promise<CaptureStatusFields | null> {
  return (
    (
      await q.query<CaptureStatusFields>(
        'SELECT capture_id, status, error, retryable, failure_reason FROM captures WHERE capture_id = $1',
        [captureId],
      )
    ).rows[0] ?? null
  );
}

/** What a webhook event needs of the submitted capture. */
export async function findSubmittedCapture(
  q: Sql,
  captureId: string,
): Promise<Pick<CaptureRow, 'capture_id' | 'url' | 'created_at'> | null> {
  return (
    (
      await q.query<Pick<CaptureRow, 'capture_id' | 'url' | 'created_at'>>(
        'SELECT capture_id, url, created_at FROM captures WHERE capture_id = $1',
        [captureId],
      )
    ).rows[0] ?? null
  );
}

export interface CaptureListFilter {
  status?: string;
  /** A URL prefix. */
  url?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  scheduleId?: string;
  sort: 'created_at' | '-created_at';
  limit: number;
  offset: number;
}

/** One page of a tenant's captures (spec 4.2) and the total matching the filter. */
export async function listCaptures(
  q: Sql,
  tenantId: string,
  f: CaptureListFilter,
): Promise<{ rows: CaptureRow[]; total: number }> {
  const where: string[] = ['tenant_id = $1'];
  const args: unknown[] = [tenantId];
  const add = (sql: string, v: unknown) => {
    args.push(v);
    where.push(sql.replace('?', `$${args.length}`));
  };
  if (f.status) add('status = ?', f.status);
  if (f.url) add("url LIKE ? || '%'", f.url);
  if (f.createdAfter) add('created_at >= ?', f.createdAfter);
  if (f.createdBefore) add('created_at < ?', f.createdBefore);
  if (f.scheduleId) add('schedule_id = ?', f.scheduleId);
  const order = f.sort === 'created_at' ? 'created_at ASC, capture_id ASC' : 'created_at DESC, capture_id DESC';
  const filter = where.join(' AND ');
  // The common shapes (no filter, or status only) read the maintained per-status counts.
  const countsOnly = !f.url && !f.createdAfter && !f.createdBefore && !f.scheduleId;
  const totalQuery = countsOnly
    ? q.query<{ n: number }>(
        `SELECT COALESCE(sum(n), 0)::bigint AS n FROM capture_counts WHERE tenant_id = $1 AND ($2::text IS NULL OR status = $2)`,
        [tenantId, f.status ?? null],
      )
    : q.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM captures WHERE ${filter}`, args);
  const [rows, total] = await Promise.all([
    q.query<CaptureRow>(
      `SELECT * FROM captures WHERE ${filter} ORDER BY ${order} LIMIT $${args.length + 1} OFFSET $${args.length + 2}`,
      [...args, f.limit, f.offset],
    ),
    totalQuery,
  ]);
  return { rows: rows.rows, total: total.rows[0]!.n };
}

export type AuditCaptureRow = Pick<
  CaptureRow,
  'capture_id' | 'url' | 'stored_bytes' | 'error' | 'retryable' | 'failure_reason'
> & { status: string; period: string };

export async function readCapturesForAudit(q: Sql, tenantId: string): Promise<AuditCaptureRow[]> {
  return (
    await q.query<AuditCaptureRow>(
      'SELECT capture_id, url, status, period, stored_bytes, error, retryable, failure_reason FROM captures WHERE tenant_id = $1',
      [tenantId],
    )
  ).rows;
}

/** Per-status counts of a tenant; null when this projection has no capture_counts table (built before it). */
export async function readCaptureCountsForAudit(
  q: Sql,
  tenantId: string,
): Promise<Array<{ status: string; n: number }> | null> {
  const exists = (await q.query<{ t: string | null }>("SELECT to_regclass('capture_counts')::text AS t")).rows[0]!.t;
  return exists
    ? (
        await q.query<{ status: string; n: number }>('SELECT status, n FROM capture_counts WHERE tenant_id = $1', [
          tenantId,
        ])
      ).rows
    : null;
}

/** The columns compared depend on the status: an outcome's fields only once there is one. */
const comparableCapture = (
  v: Pick<CaptureValues, 'status' | 'url' | 'period' | 'stored_bytes' | 'error' | 'retryable' | 'failure_reason'>,
) => ({
  status: v.status,
  url: v.url,
  period: v.period,
  ...(v.status === 'complete' ? { stored_bytes: v.stored_bytes } : {}),
  ...(v.status === 'failed' ? { error: v.error, retryable: v.retryable, failure_reason: v.failure_reason } : {}),
});

export function compareCaptures(fold: CapturesFold, rows: AuditCaptureRow[]): TableComparison {
  return {
    table: 'captures',
    expected: new Map(
      [...fold.captures].map(([id, c]): [string, ExpectedRow] => [id, { row: comparableCapture(c.value), ref: c.ref }]),
    ),
    // Every column; the comparison reads those the expected row has.
    actual: new Map(
      rows.map((r) => [
        r.capture_id,
        {
          status: r.status,
          url: r.url,
          period: r.period,
          stored_bytes: r.stored_bytes,
          error: r.error,
          retryable: r.retryable,
          failure_reason: r.failure_reason,
        },
      ]),
    ),
  };
}

export function compareCaptureCounts(fold: CapturesFold, rows: Array<{ status: string; n: number }>): TableComparison {
  const expected = new Map<string, ExpectedRow>();
  for (const status of ['pending', 'complete', 'failed'] as const) {
    const c = fold.counts.get(status);
    expected.set(status, { row: { n: c?.value.n ?? 0 }, ref: c?.ref ?? null });
  }
  // No row means zero, for a status the log has and for one it has not.
  return {
    table: 'capture_counts',
    expected,
    actual: new Map(rows.map((r) => [r.status, { n: r.n }])),
    absent: { n: 0 },
  };
}

/** The tenant's captures and their counts (null: a projection built before capture_counts). */
export interface AuditCaptureRows {
  captures: AuditCaptureRow[];
  counts: Array<{ status: string; n: number }> | null;
}

/** captures, with pending exactly as the actor sees it, then capture_counts. */
function compareCapturesAndCounts(fold: CapturesFold, rows: AuditCaptureRows, actor: TenantState): TableComparison[] {
  const captures = compareCaptures(fold, rows.captures);
  const byId = new Map(rows.captures.map((r) => [r.capture_id, r]));
  captures.actorChecks = [];
  for (const [id, c] of fold.captures) {
    const row = byId.get(id);
    if (row)
      captures.actorChecks.push({
        ref: c.ref,
        key: id,
        field: 'pending',
        projection: row.status === 'pending' ? 'pending' : 'done',
        actor: actor.pending.has(id) ? 'pending' : 'done',
      });
  }
  return rows.counts ? [captures, compareCaptureCounts(fold, rows.counts)] : [captures];
}

// ---- the read model ---------------------------------------------------------------------------------------

export const capturesReadModel = auditedReadModel({
  name: 'captures',
  tables: [CAPTURES.name, CAPTURE_COUNTS.name],
  handles: CAPTURES_HANDLES,
  changes: { event: captureChanges },
  writer: createCapturesWriter,
  fold: createCapturesFold,
  audit: {
    read: async (q, tenantId): Promise<AuditCaptureRows> => ({
      captures: await readCapturesForAudit(q, tenantId),
      counts: await readCaptureCountsForAudit(q, tenantId),
    }),
    compare: compareCapturesAndCounts,
  },
});
