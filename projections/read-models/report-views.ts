import type { Sql } from './read-model.js';

/**
 * The analyst reports (docs/analysts.md, Reports): each one a named query over one view of migration 003 or 010,
 * for a window of UTC days and optionally one tenant. The view's index (named in its migration) serves the window,
 * so a report costs what its window holds, not a tenant's whole history. Rows come back as arrays in the order of
 * `columns`, days as 'YYYY-MM-DD'.
 */

export const REPORT_NAMES = ['captures-per-day', 'failures-by-reason', 'capture-latency', 'storage-growth'] as const;
export type ReportName = (typeof REPORT_NAMES)[number];

interface ReportQuery {
  view: string;
  /** Selected after `day` and `tenant_id`, in this order. */
  measures: string[];
  /** Extra sort keys after day and tenant. */
  orderBy?: string[];
}

const REPORT_QUERIES: Record<ReportName, ReportQuery> = {
  'captures-per-day': {
    view: 'v_usage_daily',
    measures: ['captures_submitted', 'captures_completed', 'captures_failed'],
  },
  'failures-by-reason': {
    view: 'v_failures_daily',
    measures: ['reason', 'error', 'retryable', 'captures'],
    orderBy: ['reason NULLS LAST', 'error', 'retryable'],
  },
  'capture-latency': {
    view: 'v_capture_latency_daily',
    measures: ['captures', 'p50_ms', 'p90_ms', 'p99_ms', 'max_ms'],
  },
  'storage-growth': {
    view: 'v_storage_growth_daily',
    measures: ['storage_bytes', 'cumulative_storage_bytes'],
  },
};

/** A value of a report: text, a count, a flag, or null (an unknown reason). */
export type ReportCell = string | number | boolean | null;

export interface ReportRows {
  columns: string[];
  rows: ReportCell[][];
}

/** One report for the days `from`..`to` (inclusive, 'YYYY-MM-DD'), one tenant or all (null). */
export async function readReport(
  q: Sql,
  name: ReportName,
  window: { from: string; to: string; tenantId: string | null },
): Promise<ReportRows> {
  const { view, measures, orderBy = [] } = REPORT_QUERIES[name];
  const columns = ['day', 'tenant_id', ...measures];
  const r = await q.query<ReportCell[]>({
    text: `SELECT day::text, tenant_id, ${measures.join(', ')} FROM ${view}
            WHERE day BETWEEN $1::date AND $2::date AND ($3::text IS NULL OR tenant_id = $3)
            ORDER BY ${['day', 'tenant_id', ...orderBy].join(', ')}`,
    values: [window.from, window.to, window.tenantId],
    rowMode: 'array',
  });
  return { columns, rows: r.rows };
}
