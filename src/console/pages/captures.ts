import { get, query } from '../api.js';
import { field, h, put } from '../dom.js';
import { errorBox } from '../errors.js';
import { count, time } from '../format.js';
import type { PageContext } from '../router.js';
import type { CaptureList, CaptureRecord, CaptureStatusRecord, CaptureSummary } from '../api-answers.js';
import { capturePaths } from '../api-paths.js';
import { heading, statusBadge } from '../ui.js';

/**
 * The tenant's captures (spec 4.2): every filter of GET /v1/captures, kept in this page's address so back, forward
 * and a shared link show the same list; pages of `limit` by offset. Pending captures are watched by the page's one
 * poller (a status request per turn), and their rows change in place.
 */
const FILTERS = ['status', 'url', 'created_after', 'created_before', 'sort', 'schedule_id', 'limit'] as const;

/** datetime-local ⇄ ISO: the form shows the viewer's local time, the API gets the instant. */
const toLocalInput = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const off = d.getTimezoneOffset() * 60_000;
  return new Date(d.getTime() - off).toISOString().slice(0, 16);
};
const toIso = (local: string) => {
  if (!local) return '';
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
};

export function thumbnail(c: Pick<CaptureSummary, 'id' | 'url' | 'status'>): HTMLElement {
  if (c.status !== 'complete') return h('span', { class: 'thumb thumb-empty', 'aria-hidden': 'true' });
  return h('img', {
    class: 'thumb',
    src: capturePaths.artifact(c.id, 'screenshot'),
    alt: `Screenshot of ${c.url}`,
    loading: 'lazy',
    decoding: 'async',
  });
}

function row(c: CaptureSummary): HTMLTableRowElement {
  const link = h('a', { href: `/console/captures/${encodeURIComponent(c.id)}` }, c.url);
  return h(
    'tr',
    { 'data-capture': c.id },
    h('td', { class: 'thumb-cell' }, thumbnail(c)),
    h('td', { class: 'url-cell' }, link, h('br'), h('small', { class: 'muted' }, c.id)),
    h(
      'td',
      null,
      statusBadge(c.status),
      c.status === 'failed' && c.error
        ? h('div', { class: 'small' }, c.error, c.retryable ? ' (you may try again)' : '')
        : null,
    ),
    h('td', null, time(c.createdAt)),
    h('td', null, time(c.completedAt ?? c.failedAt)),
  );
}

/** Watches one pending capture: its status each turn; once complete, its record on the next turn for the times. */
export function watchPending(ctx: PageContext, c: CaptureSummary, update: (c: CaptureSummary) => void): void {
  ctx.poller.watch(c.id, async () => {
    const s = await get<CaptureStatusRecord>(capturePaths.status(c.id), ctx.signal);
    if (s.status === 'pending') return 'again';
    if (s.status === 'failed') {
      update({ ...c, status: 'failed', error: s.error, retryable: s.retryable });
      return 'done';
    }
    update({ ...c, status: 'complete' });
    ctx.poller.watch(c.id, async () => {
      const r = await get<CaptureRecord>(capturePaths.record(c.id), ctx.signal);
      update({ ...c, status: 'complete', completedAt: r.completedAt, renderQuality: r.renderQuality });
      return 'done';
    });
    return 'done';
  });
}

/** The filters of GET /v1/captures, filled in from the page's address. */
function filterForm(q: URLSearchParams): HTMLFormElement {
  return h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter captures' },
    field(
      'Status',
      h(
        'select',
        { name: 'status' },
        [
          ['', 'Any'],
          ['pending', 'Pending'],
          ['complete', 'Complete'],
          ['failed', 'Failed'],
        ].map(([v, t]) => h('option', { value: v, selected: q.get('status') === v }, t)),
      ),
    ),
    field('URL starts with', h('input', { name: 'url', type: 'text', value: q.get('url') ?? '', inputmode: 'url' })),
    field(
      'Created from',
      h('input', { name: 'created_after', type: 'datetime-local', value: toLocalInput(q.get('created_after')) }),
    ),
    field(
      'Created before',
      h('input', { name: 'created_before', type: 'datetime-local', value: toLocalInput(q.get('created_before')) }),
    ),
    field(
      'Order',
      h(
        'select',
        { name: 'sort' },
        [
          ['-created_at', 'Newest first'],
          ['created_at', 'Oldest first'],
        ].map(([v, t]) => h('option', { value: v, selected: (q.get('sort') ?? '-created_at') === v }, t)),
      ),
    ),
    field(
      'Schedule',
      h('input', { name: 'schedule_id', type: 'text', value: q.get('schedule_id') ?? '', placeholder: 'sch_…' }),
    ),
    field(
      'Per page',
      h(
        'select',
        { name: 'limit' },
        ['20', '50', '100'].map((v) => h('option', { value: v, selected: (q.get('limit') ?? '20') === v }, v)),
      ),
    ),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Apply filters'),
      h('a', { href: '/console/captures', class: 'button-link' }, 'Clear'),
    ),
  );
}

function capturesTable(tbody: HTMLTableSectionElement): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'captures' },
      h('caption', { class: 'visually-hidden' }, 'Captures'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Screenshot', 'URL', 'Status', 'Created', 'Finished'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      tbody,
    ),
  );
}

/** Links to the previous and next pages of the list, keeping its filters. */
function pager(q: URLSearchParams, pagination: CaptureList['pagination']): HTMLElement {
  const pageLink = (offset: number, text: string, rel: string) => {
    const p = new URLSearchParams(q);
    p.set('offset', String(offset));
    return h('a', { href: `/console/captures?${p}`, rel, class: 'button-link' }, text);
  };
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages of captures' },
    pagination.offset > 0 ? pageLink(Math.max(0, pagination.offset - pagination.limit), 'Previous page', 'prev') : null,
    pagination.hasMore ? pageLink(pagination.offset + pagination.limit, 'Next page', 'next') : null,
  );
}

export async function capturesPage(ctx: PageContext): Promise<void> {
  const q = ctx.query;
  const form = filterForm(q);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const params: Record<string, string> = {};
    for (const name of FILTERS) {
      const v = String(data.get(name) ?? '').trim();
      params[name] = name.startsWith('created_') ? toIso(v) : v;
    }
    ctx.navigate(`/console/captures${query(params)}`);
  });

  const results = h('section', { 'aria-labelledby': 'results-heading' });
  put(
    ctx.main,
    heading('Captures'),
    h('p', null, h('a', { href: '/console/submit', class: 'button-link primary' }, 'Submit a capture')),
    form,
    results,
  );

  const params: Record<string, string | null> = { offset: q.get('offset') };
  for (const name of FILTERS) params[name] = q.get(name);
  let list: CaptureList;
  try {
    list = await get<CaptureList>(`/v1/captures${query(params)}`, ctx.signal);
  } catch (err) {
    put(results, h('h2', { id: 'results-heading' }, 'Results'), errorBox(err));
    return;
  }
  const { data, pagination } = list;
  const tbody = h('tbody', null, data.map(row));
  for (const c of data) {
    if (c.status !== 'pending') continue;
    watchPending(ctx, c, (next) =>
      tbody.querySelector(`tr[data-capture="${CSS.escape(c.id)}"]`)?.replaceWith(row(next)),
    );
  }
  const first = data.length ? pagination.offset + 1 : 0;
  put(
    results,
    h('h2', { id: 'results-heading' }, 'Results'),
    h(
      'p',
      { class: 'muted' },
      data.length
        ? `${count(first)}–${count(pagination.offset + data.length)} of ${count(pagination.total)}`
        : 'No captures match.',
    ),
    data.length ? capturesTable(tbody) : null,
    pager(q, pagination),
  );
}
