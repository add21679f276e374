import type { ServiceContext } from './service-context.js';
import { refusal } from '../domain/errors.js';
import { TENANT_ID_PATTERN } from '../domain/tenant-keys.js';
import { dayOf } from '../../projections/read-models/read-model.js';
import { REPORT_NAMES, type ReportName, readReport } from '../../projections/read-models/report-views.js';

/**
 * The analysts' reports (docs/analysts.md, Reports): captures per tenant per day, failures by reason, capture
 * latency percentiles, storage growth — each a named query over a projection view, for a window of UTC days. The
 * operator report route calls this; how the rows are written out (JSON or CSV) is the route's.
 */

export type AnalystReports = ReturnType<typeof createAnalystReports>;

/** Without `from`, a report covers the 30 days up to `to` (default today, UTC). */
export const DEFAULT_REPORT_DAYS = 30;
/** The widest window one report reads, so its cost stays bounded by days (the views' indexes serve a window). */
export const MAX_REPORT_DAYS = 366;

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** 'YYYY-MM-DD' naming a real calendar day, as a Date at its UTC midnight; null otherwise. */
const calendarDay = (text: string): Date | null => {
  if (!DATE.test(text)) return null;
  const d = new Date(`${text}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || dayOf(d.toISOString()) !== text ? null : d;
};

const invalid = (field: string, why: string) => refusal(400, `Invalid request: querystring.${field}: ${why}`);

export interface ReportRequest {
  from?: string | undefined;
  to?: string | undefined;
  tenant?: string | undefined;
}

export function createAnalystReports(ctx: ServiceContext) {
  const isReport = (name: string): name is ReportName => (REPORT_NAMES as readonly string[]).includes(name);

  /** The window asked for, defaults filled in; 400 naming the field for a date that is not one or a window too wide. */
  function windowOf(req: ReportRequest): { from: string; to: string } {
    const to = req.to === undefined ? dayOf(ctx.clock.now().toISOString()) : req.to;
    const toDay = calendarDay(to);
    if (!toDay) throw invalid('to', 'must be a date YYYY-MM-DD');
    if (req.from === undefined)
      return { from: dayOf(new Date(toDay.getTime() - (DEFAULT_REPORT_DAYS - 1) * DAY_MS).toISOString()), to };
    const fromDay = calendarDay(req.from);
    if (!fromDay) throw invalid('from', 'must be a date YYYY-MM-DD');
    if (fromDay > toDay) throw invalid('from', 'must not be after to');
    if ((toDay.getTime() - fromDay.getTime()) / DAY_MS + 1 > MAX_REPORT_DAYS)
      throw invalid('from', `the window from..to must be at most ${MAX_REPORT_DAYS} days`);
    return { from: req.from, to };
  }

  return {
    names: REPORT_NAMES,

    /** One report: 404 naming the valid reports for an unknown name, 400 for a bad window or tenant. */
    async report(name: string, req: ReportRequest) {
      if (!isReport(name)) throw refusal(404, `No report ${name}; the reports are ${REPORT_NAMES.join(', ')}.`);
      const window = windowOf(req);
      if (req.tenant !== undefined && !TENANT_ID_PATTERN.test(req.tenant))
        throw invalid('tenant', 'must match ^[a-z0-9_-]{1,64}$');
      const { columns, rows } = await readReport(ctx.pool, name, { ...window, tenantId: req.tenant ?? null });
      return { name, from: window.from, to: window.to, columns, rows };
    },
  };
}
