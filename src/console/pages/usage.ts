import type { AccountUsage, DailyUsage } from '../api-answers.js';
import { get, query } from '../api.js';
import { barChart, legend } from '../charts.js';
import { field, h, put } from '../dom.js';
import { errorBox } from '../errors.js';
import { bytes, count, currentPeriod, time } from '../format.js';
import type { PageContext } from '../router.js';
import { facts, heading, table } from '../ui.js';

/** Usage (spec 4.14): this month against the quota, as the API counts it, and captures per day as a chart. */
function meter(label: string, used: number, limit: number, format: (n: number) => string): HTMLElement {
  const id = `meter-${label.toLowerCase().replace(/\W+/g, '-')}`;
  return h(
    'div',
    { class: 'meter-row' },
    h('label', { for: id }, label),
    h('meter', {
      id,
      min: '0',
      max: String(Math.max(limit, 1)),
      value: String(used),
      high: String(limit * 0.9),
      optimum: '0',
    }),
    h('span', null, `${format(used)} of ${format(limit)}`),
  );
}

export async function usagePage(ctx: PageContext): Promise<void> {
  const period = /^\d{4}-\d{2}$/.test(ctx.query.get('period') ?? '') ? ctx.query.get('period')! : currentPeriod();
  const month = h('section', { 'aria-labelledby': 'month-heading' }, h('h2', { id: 'month-heading' }, 'This month'));
  const daily = h('section', { 'aria-labelledby': 'daily-heading' });
  const picker = h(
    'form',
    { class: 'inline' },
    field('Month', h('input', { type: 'month', name: 'period', value: period })),
    h('button', { type: 'submit' }, 'Show'),
  );
  picker.addEventListener('submit', (e) => {
    e.preventDefault();
    ctx.navigate(`/console/usage${query({ period: String(new FormData(picker).get('period') ?? '') })}`);
  });
  put(ctx.main, heading('Usage'), month, daily);

  get<AccountUsage>('/v1/account/usage', ctx.signal)
    .then((u) =>
      month.append(
        meter('Captures', u.captures.used, u.captures.limit, count),
        meter('Storage', u.storageBytes.used, u.storageBytes.limit, bytes),
        facts([
          ['Plan', u.tierDisplay],
          ['Period', u.period],
          ['Captures left', count(u.captures.remaining)],
          ['Storage left', bytes(u.storageBytes.remaining)],
          ['Resets', time(u.resetsAt)],
        ]),
      ),
    )
    .catch((err) => month.append(errorBox(err)));

  put(daily, h('h2', { id: 'daily-heading' }, `Captures per day, ${period}`), picker);
  try {
    const d = await get<DailyUsage>(`/v1/account/usage/daily${query({ period })}`, ctx.signal);
    const labels = d.days.map((x) => x.date.slice(8));
    const series = [
      { name: 'captures', values: d.days.map((x) => x.captures) },
      { name: 'failed', values: d.days.map((x) => x.failed) },
    ];
    daily.append(
      h(
        'figure',
        { class: 'chart-box' },
        barChart(`Captures per day in ${d.period} (failed ones darker)`, labels, series, count),
        h('figcaption', null, legend(series)),
      ),
      h(
        'details',
        null,
        h('summary', null, 'The numbers'),
        table(
          `Captures per day, ${d.period}`,
          ['Day (UTC)', 'Captures', 'Failed', 'Storage'],
          d.days.map((x) => [x.date, count(x.captures), count(x.failed), bytes(x.storageBytes)]),
        ),
      ),
    );
  } catch (err) {
    daily.append(errorBox(err));
  }
}
