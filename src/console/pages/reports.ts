import type { Report, ReportName } from '../api-answers.js';
import { get, query } from '../api.js';
import { barChart, legend, lineChart, type Series } from '../charts.js';
import { field, formValues, h, put } from '../dom.js';
import { errorBox } from '../errors.js';
import { count } from '../format.js';
import type { PageContext } from '../router.js';
import { heading, table } from '../ui.js';

/**
 * The pages that read only the reports (GET /v1/admin/reports/{name}): Reports and Usage across tenants. Both the
 * operator's area and the analyst's show them (src/console/main.ts); the admin session or the analyst session reads
 * them, whichever the browser holds.
 */

// ——— Reports ———

/** What each report charts: lines per value of `group`, summing `value` per day (the rows are per day and tenant). */
const REPORT_CHARTS: Record<ReportName, { title: string; group: string; value: string; unit: string }> = {
  'captures-per-day': {
    title: 'Captures per day',
    group: 'tenant_id',
    value: 'captures_completed',
    unit: 'completed captures',
  },
  'failures-by-reason': { title: 'Failures by reason', group: 'reason', value: 'captures', unit: 'failed captures' },
  'capture-latency': { title: 'Capture latency', group: 'tenant_id', value: 'p90_ms', unit: 'p90 latency, ms' },
  'storage-growth': {
    title: 'Storage growth',
    group: 'tenant_id',
    value: 'cumulative_storage_bytes',
    unit: 'bytes stored',
  },
};
/** The reports the page shows, in this order: every report the API documents. */
const REPORT_NAMES = Object.keys(REPORT_CHARTS) as ReportName[];
const REPORT_TITLES: Record<string, string> = Object.fromEntries(
  Object.entries(REPORT_CHARTS).map(([name, c]) => [name, c.title]),
);
const reportCsvPath = (name: ReportName) => `/v1/admin/reports/${name}?format=csv`;

/**
 * A report as a chart: days along the x axis, one line (or bar series) per value of the report's group column, its
 * value column summed per day. Latency charts each tenant's p90 (percentiles do not add up across tenants).
 */
export function reportChart(r: Report): { chart: SVGSVGElement; series: Series[] } | null {
  const spec = REPORT_CHARTS[r.name];
  const group = spec ? r.columns.indexOf(spec.group) : -1;
  const value = spec ? r.columns.indexOf(spec.value) : -1;
  if (!spec || group < 0 || value < 0 || r.rows.length === 0) return null;
  const xs = [...new Set(r.rows.map((row) => String(row[0])))].sort();
  const groups = [...new Set(r.rows.map((row) => String(row[group] ?? '—')))];
  const series: Series[] = groups.map((g) => ({
    name: g,
    values: xs.map((x) =>
      r.rows
        .filter((row) => String(row[0]) === x && String(row[group] ?? '—') === g)
        .reduce((sum, row) => sum + (Number(row[value]) || 0), 0),
    ),
  }));
  const title = `${spec.title} (${spec.unit})`;
  const chart = series.length === 1 ? barChart(title, xs, series, count) : lineChart(title, xs, series, count);
  return { chart, series };
}

export async function reportsPage(ctx: PageContext): Promise<void> {
  const sections = REPORT_NAMES.map((name) =>
    h(
      'section',
      { 'aria-labelledby': `r-${name}`, class: 'report' },
      h('h2', { id: `r-${name}` }, REPORT_TITLES[name]),
      h('p', null, 'Loading…'),
    ),
  );
  put(ctx.main, heading('Reports'), h('p', null, 'Built from the projections. Each downloads as CSV.'), sections);
  await Promise.all(
    REPORT_NAMES.map(async (name, i) => {
      const section = sections[i]!;
      const csv = h(
        'a',
        { href: reportCsvPath(name), download: `${name}.csv`, class: 'button-link' },
        `Download ${REPORT_TITLES[name]} as CSV`,
      );
      try {
        const r = await get<Report>(`/v1/admin/reports/${name}`, ctx.signal);
        const drawn = reportChart(r);
        put(
          section,
          h('h2', { id: `r-${name}` }, REPORT_TITLES[name]),
          drawn
            ? h('figure', { class: 'chart-box' }, drawn.chart, h('figcaption', null, legend(drawn.series)))
            : h('p', null, 'Nothing to chart yet.'),
          h('p', null, csv),
          h(
            'details',
            null,
            h('summary', null, 'The numbers'),
            table(
              REPORT_TITLES[name]!,
              r.columns,
              r.rows.map((row) => row.map((v) => (v === null ? '—' : String(v)))),
            ),
          ),
        );
      } catch (err) {
        put(section, h('h2', { id: `r-${name}` }, REPORT_TITLES[name]), errorBox(err), h('p', null, csv));
      }
    }),
  );
}

// ——— Usage across tenants ———

/**
 * Usage across tenants and periods: captures per tenant per day and failures by reason per day, for a
 * period picked on the page, from the reports. The console only regroups the report's rows for drawing; the numbers
 * are the report's.
 */

const DAY = 86_400_000;
const utcDay = (d: Date) => d.toISOString().slice(0, 10);
/** At most this many lines in one chart; the rest are summed into one "other" line. */
const LINES = 5;

interface Period {
  value: string;
  label: string;
  from: string;
  to: string;
}

/** Periods to pick: the last 7, 30, 90 and 365 days, and each of the last 12 calendar months (UTC). */
function periods(now = new Date()): Period[] {
  const today = utcDay(now);
  const back = (n: number) => utcDay(new Date(now.getTime() - (n - 1) * DAY));
  const out: Period[] = [7, 30, 90, 365].map((n) => ({
    value: `last-${n}`,
    label: `Last ${n} days`,
    from: back(n),
    to: today,
  }));
  for (let i = 0; i < 12; i++) {
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
    const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0));
    const month = first.toISOString().slice(0, 7);
    out.push({
      value: month,
      label: `${new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(first)}${i === 0 ? ' (so far)' : ''}`,
      from: utcDay(first),
      to: i === 0 ? today : utcDay(last),
    });
  }
  return out;
}

/** Every day of the window, so a day without rows is a zero, not a gap. */
function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY)
    days.push(utcDay(new Date(t)));
  return days;
}

/** Sums `value` of each row by (group, day); the largest LINES groups are lines, the rest one "other" line. */
function groupedSeries(
  rows: Report['rows'],
  days: string[],
  groupOf: (row: Report['rows'][number]) => string,
  amountOf: (row: Report['rows'][number]) => number,
  other: string,
): { series: Series[]; totals: [string, number][] } {
  const index = new Map(days.map((d, i) => [d, i]));
  const byGroup = new Map<string, number[]>();
  for (const row of rows) {
    const i = index.get(String(row[0]));
    if (i === undefined) continue;
    const g = groupOf(row);
    const values = byGroup.get(g) ?? days.map(() => 0);
    values[i]! += amountOf(row);
    byGroup.set(g, values);
  }
  const totals = [...byGroup].map(([g, v]) => [g, v.reduce((a, b) => a + b, 0)] as [string, number]);
  totals.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const shown = totals.slice(0, LINES).map(([g]) => ({ name: g, values: byGroup.get(g)! }));
  const rest = totals.slice(LINES);
  if (rest.length)
    shown.push({
      name: `${other} (${rest.length})`,
      values: days.map((_, i) => rest.reduce((sum, [g]) => sum + byGroup.get(g)![i]!, 0)),
    });
  return { series: shown, totals };
}

const n = (v: unknown) => (typeof v === 'number' ? v : Number(v) || 0);

function chartFigure(title: string, days: string[], series: Series[]): HTMLElement {
  if (series.length === 0) return h('p', null, 'Nothing in this period.');
  return h(
    'figure',
    { class: 'chart-box' },
    lineChart(title, days, series, count),
    h('figcaption', null, legend(series), h('small', { class: 'muted' }, 'Days are UTC days.')),
  );
}

function periodForm(options: Period[], picked: Period, tenant: string): HTMLFormElement {
  return h(
    'form',
    { class: 'filters', 'aria-label': 'Period and tenant' },
    field(
      'Period',
      h(
        'select',
        { name: 'period' },
        options.map((p) => h('option', { value: p.value, selected: p.value === picked.value }, p.label)),
      ),
    ),
    field('Tenant', h('input', { name: 'tenant', type: 'text', value: tenant }), 'Empty: every tenant.'),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Show')),
  );
}

/** What the usage page shows: a period, every day of it, and one tenant or (undefined) all. */
interface UsageWindow {
  period: Period;
  days: string[];
  tenant: string | undefined;
}

const reportQuery = (w: UsageWindow) => query({ from: w.period.from, to: w.period.to, tenant: w.tenant });

/** Completed captures per tenant per day as a chart, and each tenant's totals as a table. */
async function drawCapturesPerTenant(section: HTMLElement, w: UsageWindow, signal: AbortSignal): Promise<void> {
  const title = h('h2', { id: 'u-captures' }, 'Captures per tenant per day');
  try {
    const r = await get<Report>(`/v1/admin/reports/captures-per-day${reportQuery(w)}`, signal);
    const col = (name: string) => r.columns.indexOf(name);
    const [t, done, failed, submitted] = [
      col('tenant_id'),
      col('captures_completed'),
      col('captures_failed'),
      col('captures_submitted'),
    ];
    const { series, totals } = groupedSeries(
      r.rows,
      w.days,
      (row) => String(row[t]),
      (row) => n(row[done]),
      'Other tenants',
    );
    const sums = new Map<string, [number, number, number]>();
    for (const row of r.rows) {
      const s = sums.get(String(row[t])) ?? [0, 0, 0];
      sums.set(String(row[t]), [s[0] + n(row[submitted]), s[1] + n(row[done]), s[2] + n(row[failed])]);
    }
    put(
      section,
      title,
      chartFigure(`Completed captures per tenant per day, ${w.period.label}`, w.days, series),
      totals.length || sums.size
        ? table(
            `Captures per tenant, ${w.period.label}`,
            ['Tenant', 'Submitted', 'Completed', 'Failed'],
            [...sums].map(([tenantId, [s, c, f]]) => [tenantId, count(s), count(c), count(f)]),
          )
        : null,
    );
  } catch (err) {
    put(section, title, errorBox(err));
  }
}

/** Failed captures per reason per day as a chart, and each reason's total as a table. */
async function drawFailuresByReason(section: HTMLElement, w: UsageWindow, signal: AbortSignal): Promise<void> {
  const title = h('h2', { id: 'u-failures' }, 'Failures by reason per day');
  try {
    const r = await get<Report>(`/v1/admin/reports/failures-by-reason${reportQuery(w)}`, signal);
    const [reason, captured] = [r.columns.indexOf('reason'), r.columns.indexOf('captures')];
    const { series, totals } = groupedSeries(
      r.rows,
      w.days,
      (row) => (row[reason] === null || row[reason] === '' ? 'unclassified' : String(row[reason])),
      (row) => n(row[captured]),
      'Other reasons',
    );
    put(
      section,
      title,
      chartFigure(`Failed captures by reason per day, ${w.period.label}`, w.days, series),
      totals.length
        ? table(
            `Failures by reason, ${w.period.label}`,
            ['Reason', 'Failed captures'],
            totals.map(([g, v]) => [g, count(v)]),
          )
        : null,
    );
  } catch (err) {
    put(section, title, errorBox(err));
  }
}

export async function usageAcrossTenantsPage(ctx: PageContext): Promise<void> {
  const options = periods();
  const picked = options.find((p) => p.value === ctx.query.get('period')) ?? options[1]!;
  const tenant = ctx.query.get('tenant') ?? '';
  const form = periodForm(options, picked, tenant);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(form);
    // The same page in the operator's and the analyst's area: stay in the one it was opened in.
    ctx.navigate(`${location.pathname}${query({ period: v.period, tenant: v.tenant?.trim() })}`);
  });
  const captures = h(
    'section',
    { 'aria-labelledby': 'u-captures' },
    h('h2', { id: 'u-captures' }, 'Captures per tenant per day'),
    h('p', null, 'Loading…'),
  );
  const failures = h(
    'section',
    { 'aria-labelledby': 'u-failures' },
    h('h2', { id: 'u-failures' }, 'Failures by reason per day'),
    h('p', null, 'Loading…'),
  );
  put(
    ctx.main,
    heading('Usage'),
    h('p', null, 'Completed captures and failures across tenants, from the analysts’ reports.'),
    form,
    captures,
    failures,
  );
  const w: UsageWindow = { period: picked, days: daysOf(picked.from, picked.to), tenant: tenant || undefined };
  await Promise.all([drawCapturesPerTenant(captures, w, ctx.signal), drawFailuresByReason(failures, w, ctx.signal)]);
}
