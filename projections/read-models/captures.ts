import type { FailureReason } from '../../src/domain/failure-reason.js';
import type { ArtifactRefs, BundleRef, CaptureRender, CaptureSettings, TenantEvent } from '../../src/domain/events.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import type { EventRef, ExpectedRow, SettledCapture, Sql, TableComparison, TenantEnvelope, TenantEventType } from './read-model.js';

/**
 * `captures` (one row per capture: pending, then complete or failed by its first outcome) and `capture_counts`
 * (per tenant and status, so a list's total is one row read). The hot path of the projector: a batch's
 * submissions and outcomes are written with three set-based statements in `flush`. The outcomes that found
 * their capture pending are handed on (SettledCapture): usage and schedules count those.
 */

export const CAPTURES_HANDLES: readonly TenantEventType[] = ['capture.submitted', 'capture.completed', 'capture.failed'];

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

type CompletedData = Extract<TenantEvent, { type: 'capture.completed' }>['data'];
type FailedData = Extract<TenantEvent, { type: 'capture.failed' }>['data'];
type Outcome = { occurredAt: string } & ({ status: 'complete'; data: CompletedData } | { status: 'failed'; data: FailedData });

const settledOf = (c: { captureId: string; tenantId: string; period: string; scheduleId: string | null }, o: Outcome): SettledCapture => ({
  ...c,
  status: o.status,
  occurredAt: o.occurredAt,
  at: o.status === 'complete' ? o.data.completedAt : o.data.failedAt,
  storedBytes: o.status === 'complete' ? o.data.storedBytes : 0,
});

// ---- batch writer ---------------------------------------------------------------------------------------

export function createCapturesWriter(q: Sql) {
  const inserts: Array<{ captureId: string; tenantId: string; url: string; period: string; createdAt: string; scheduleId: string | null; source: string }> = [];
  const outcomes = new Map<string, Outcome>(); // first outcome per capture wins, as sequential application would
  const counts = new Map<string, number>();
  const count = (tenantId: string, status: string, delta: number) => counts.set(`${tenantId}|${status}`, (counts.get(`${tenantId}|${status}`) ?? 0) + delta);

  return {
    apply(stored: StoredEvent): void {
      const t = stored.event as TenantEnvelope;
      if (t.type === 'capture.submitted') {
        for (const c of t.data.captures) {
          inserts.push({ captureId: c.captureId, tenantId: t.tenantId, url: c.url, period: t.data.period, createdAt: t.occurredAt, scheduleId: t.data.scheduleId ?? null, source: t.data.source });
        }
      } else if (t.type === 'capture.completed' || t.type === 'capture.failed') {
        if (outcomes.has(t.data.captureId)) return;
        outcomes.set(
          t.data.captureId,
          t.type === 'capture.completed' ? { occurredAt: t.occurredAt, status: 'complete', data: t.data } : { occurredAt: t.occurredAt, status: 'failed', data: t.data },
        );
      }
    },

    /** Submissions first (an outcome in the same batch then finds its row), outcomes, then the counts. */
    async flush(): Promise<SettledCapture[]> {
      const settled: SettledCapture[] = [];
      if (inserts.length > 0) {
        const r = await q.query<{ tenant_id: string }>(
          `INSERT INTO captures (capture_id, tenant_id, url, status, period, created_at, schedule_id, source)
           SELECT u.id, u.tenant, u.url, 'pending', u.period, u.created, u.sched, u.source
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[]) AS u(id, tenant, url, period, created, sched, source)
           ON CONFLICT (capture_id) DO NOTHING RETURNING tenant_id`,
          [
            inserts.map((i) => i.captureId),
            inserts.map((i) => i.tenantId),
            inserts.map((i) => i.url),
            inserts.map((i) => i.period),
            inserts.map((i) => i.createdAt),
            inserts.map((i) => i.scheduleId),
            inserts.map((i) => i.source),
          ],
        );
        for (const row of r.rows) count(row.tenant_id, 'pending', 1);
        inserts.length = 0;
      }
      if (outcomes.size > 0) {
        const list = [...outcomes.entries()];
        const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
        const r = await q.query<{ capture_id: string; tenant_id: string; period: string; schedule_id: string | null }>(
          `UPDATE captures c SET status = u.status, completed_at = u.completed_at, failed_at = u.failed_at, render_quality = u.rq,
             render = u.render::jsonb, artifacts = u.artifacts::jsonb, bundle = u.bundle::jsonb, capture_settings = u.cs::jsonb,
             stored_bytes = u.bytes, attempts = u.attempts, error = u.error, retryable = u.retryable, failure_reason = u.reason
           FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                       $10::bigint[], $11::int[], $12::text[], $13::boolean[], $14::text[])
                AS u(id, status, completed_at, failed_at, rq, render, artifacts, bundle, cs, bytes, attempts, error, retryable, reason)
           WHERE c.capture_id = u.id AND c.status = 'pending'
           RETURNING c.capture_id, c.tenant_id, c.period, c.schedule_id`,
          [
            list.map(([id]) => id),
            list.map(([, o]) => o.status),
            list.map(([, o]) => (o.status === 'complete' ? o.data.completedAt : null)),
            list.map(([, o]) => (o.status === 'failed' ? o.data.failedAt : null)),
            list.map(([, o]) => (o.status === 'complete' ? o.data.renderQuality : null)),
            list.map(([, o]) => (o.status === 'complete' ? json(o.data.render) : null)),
            list.map(([, o]) => (o.status === 'complete' ? json(o.data.artifacts) : null)),
            list.map(([, o]) => (o.status === 'complete' ? json(o.data.bundle) : null)),
            list.map(([, o]) => (o.status === 'complete' ? json(o.data.captureSettings) : null)),
            list.map(([, o]) => (o.status === 'complete' ? o.data.storedBytes : null)),
            list.map(([, o]) => o.data.attempts),
            list.map(([, o]) => (o.status === 'failed' ? o.data.error : null)),
            list.map(([, o]) => (o.status === 'failed' ? o.data.retryable : null)),
            list.map(([, o]) => (o.status === 'failed' ? (o.data.failureReason ?? null) : null)),
          ],
        );
        // The final URL (migration 009) in a statement of its own, for completions that carry one.
        const finals = list.flatMap(([id, o]) => (o.status === 'complete' && o.data.finalUrl !== undefined ? [[id, o.data.finalUrl] as const] : []));
        if (finals.length > 0) {
          await q.query(`UPDATE captures c SET final_url = u.final_url FROM unnest($1::text[], $2::text[]) AS u(id, final_url) WHERE c.capture_id = u.id`, [
            finals.map(([id]) => id),
            finals.map(([, finalUrl]) => finalUrl),
          ]);
        }
        for (const hit of r.rows) {
          const o = outcomes.get(hit.capture_id)!;
          count(hit.tenant_id, 'pending', -1);
          count(hit.tenant_id, o.status, 1);
          settled.push(settledOf({ captureId: hit.capture_id, tenantId: hit.tenant_id, period: hit.period, scheduleId: hit.schedule_id }, o));
        }
        outcomes.clear();
      }
      const changed = [...counts.entries()].filter(([, n]) => n !== 0);
      if (changed.length > 0) {
        await q.query(
          `INSERT INTO capture_counts (tenant_id, status, n)
           SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
           ON CONFLICT (tenant_id, status) DO UPDATE SET n = capture_counts.n + EXCLUDED.n`,
          [changed.map(([k]) => k.split('|')[0]), changed.map(([k]) => k.split('|')[1]), changed.map(([, n]) => n)],
        );
      }
      counts.clear();
      return settled;
    },
  };
}

// ---- pure fold ------------------------------------------------------------------------------------------

export interface ExpectedCapture {
  url: string;
  status: CaptureStatus;
  period: string;
  scheduleId: string | null;
  storedBytes: number | null;
  error: string | null;
  retryable: boolean | null;
  failureReason: FailureReason | null;
}

export function createCapturesFold() {
  const captures = new Map<string, { value: ExpectedCapture; ref: EventRef }>();
  /** The event that last changed the number of captures in each status. */
  const statusRefs = new Map<string, EventRef>();
  return {
    captures,
    statusRefs,
    /** Returns the outcome that settled a pending capture, if this event is one. */
    apply(stored: StoredEvent, ref: EventRef): SettledCapture | null {
      const e = stored.event as TenantEnvelope;
      if (e.type === 'capture.submitted') {
        for (const c of e.data.captures) {
          if (captures.has(c.captureId)) continue;
          captures.set(c.captureId, {
            value: { url: c.url, status: 'pending', period: e.data.period, scheduleId: e.data.scheduleId ?? null, storedBytes: null, error: null, retryable: null, failureReason: null },
            ref,
          });
          statusRefs.set('pending', ref);
        }
        return null;
      }
      if (e.type !== 'capture.completed' && e.type !== 'capture.failed') return null;
      const c = captures.get(e.data.captureId);
      if (!c || c.value.status !== 'pending') return null;
      c.ref = ref;
      statusRefs.set('pending', ref);
      let outcome: Outcome;
      if (e.type === 'capture.completed') {
        Object.assign(c.value, { status: 'complete', storedBytes: e.data.storedBytes });
        outcome = { occurredAt: e.occurredAt, status: 'complete', data: e.data };
      } else {
        Object.assign(c.value, { status: 'failed', error: e.data.error, retryable: e.data.retryable, failureReason: e.data.failureReason ?? null });
        outcome = { occurredAt: e.occurredAt, status: 'failed', data: e.data };
      }
      statusRefs.set(outcome.status, ref);
      return settledOf({ captureId: e.data.captureId, tenantId: e.tenantId, period: c.value.period, scheduleId: c.value.scheduleId }, outcome);
    },
  };
}
export type CapturesFold = ReturnType<typeof createCapturesFold>;

// ---- queries --------------------------------------------------------------------------------------------

export async function findCapture(q: Sql, captureId: string): Promise<CaptureRow | null> {
  return (await q.query<CaptureRow>('SELECT * FROM captures WHERE capture_id = $1', [captureId])).rows[0] ?? null;
}

/** What a webhook event needs of the submitted capture. */
export async function findSubmittedCapture(q: Sql, captureId: string): Promise<Pick<CaptureRow, 'capture_id' | 'url' | 'created_at'> | null> {
  return (await q.query<Pick<CaptureRow, 'capture_id' | 'url' | 'created_at'>>('SELECT capture_id, url, created_at FROM captures WHERE capture_id = $1', [captureId])).rows[0] ?? null;
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
export async function listCaptures(q: Sql, tenantId: string, f: CaptureListFilter): Promise<{ rows: CaptureRow[]; total: number }> {
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
    ? q.query<{ n: number }>(`SELECT COALESCE(sum(n), 0)::bigint AS n FROM capture_counts WHERE tenant_id = $1 AND ($2::text IS NULL OR status = $2)`, [tenantId, f.status ?? null])
    : q.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM captures WHERE ${filter}`, args);
  const [rows, total] = await Promise.all([q.query<CaptureRow>(`SELECT * FROM captures WHERE ${filter} ORDER BY ${order} LIMIT $${args.length + 1} OFFSET $${args.length + 2}`, [...args, f.limit, f.offset]), totalQuery]);
  return { rows: rows.rows, total: total.rows[0]!.n };
}

export type AuditCaptureRow = Pick<CaptureRow, 'capture_id' | 'url' | 'stored_bytes' | 'error' | 'retryable' | 'failure_reason'> & { status: string; period: string };

export async function readCapturesForAudit(q: Sql, tenantId: string): Promise<AuditCaptureRow[]> {
  return (await q.query<AuditCaptureRow>('SELECT capture_id, url, status, period, stored_bytes, error, retryable, failure_reason FROM captures WHERE tenant_id = $1', [tenantId])).rows;
}

/** Per-status counts of a tenant; null when this projection has no capture_counts table (built before it). */
export async function readCaptureCountsForAudit(q: Sql, tenantId: string): Promise<Array<{ status: string; n: number }> | null> {
  const exists = (await q.query<{ t: string | null }>("SELECT to_regclass('capture_counts')::text AS t")).rows[0]!.t;
  return exists ? (await q.query<{ status: string; n: number }>('SELECT status, n FROM capture_counts WHERE tenant_id = $1', [tenantId])).rows : null;
}

/** The columns compared depend on the status: an outcome's fields only once there is one. */
const comparableCapture = (v: Pick<ExpectedCapture, 'status' | 'url' | 'period' | 'storedBytes' | 'error' | 'retryable' | 'failureReason'>) => ({
  status: v.status,
  url: v.url,
  period: v.period,
  ...(v.status === 'complete' ? { stored_bytes: v.storedBytes } : {}),
  ...(v.status === 'failed' ? { error: v.error, retryable: v.retryable, failure_reason: v.failureReason } : {}),
});

export function compareCaptures(fold: CapturesFold, rows: AuditCaptureRow[]): TableComparison {
  return {
    table: 'captures',
    expected: new Map([...fold.captures].map(([id, c]): [string, ExpectedRow] => [id, { row: comparableCapture(c.value), ref: c.ref }])),
    // Every column; the comparison reads those the expected row has.
    actual: new Map(rows.map((r) => [r.capture_id, { status: r.status, url: r.url, period: r.period, stored_bytes: r.stored_bytes, error: r.error, retryable: r.retryable, failure_reason: r.failure_reason }])),
  };
}

export function compareCaptureCounts(fold: CapturesFold, rows: Array<{ status: string; n: number }>): TableComparison {
  const expected = new Map<string, ExpectedRow>();
  for (const status of ['pending', 'complete', 'failed'] as const) {
    const n = [...fold.captures.values()].filter((c) => c.value.status === status).length;
    expected.set(status, { row: { n }, ref: fold.statusRefs.get(status) ?? null });
  }
  // No row means zero, for a status the log has and for one it has not.
  return { table: 'capture_counts', expected, actual: new Map(rows.map((r) => [r.status, { n: r.n }])), absent: { n: 0 } };
}
