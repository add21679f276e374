import { call, get, query } from '../api.js';
import { field, formValues, h, put, statusRegion } from '../dom.js';
import { errorBox } from '../errors.js';
import { count, time } from '../format.js';
import type { PageContext } from '../router.js';
import type { ArchiveStatus, CheckRun, DeadLetters, OperatorCheck, OperatorChecks } from '../api-answers.js';
import { facts, heading, table } from '../ui.js';

/** Operator pages (admin session): the checks' last results, and the webhook dead-letter queue across tenants. */

// ——— Checks ———

const CHECK_TITLES: Record<string, string> = {
  'ledger-audit': 'Ledger audit',
  'log-audit': 'Transparency-log audit',
  'log-monitor': 'Transparency-log monitor',
  'storage-verify': 'Storage verify',
};

const took = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`);

function verdict(run: CheckRun): HTMLElement {
  return run.ok
    ? h('span', { class: 'badge status-complete' }, 'OK')
    : h(
        'span',
        { class: 'badge status-failed' },
        `${count(run.findingCount)} finding${run.findingCount === 1 ? '' : 's'}`,
      );
}

function lastRun(title: string, run: CheckRun | null, command: string): HTMLElement {
  if (!run)
    return h(
      'p',
      null,
      'Never recorded. Run ',
      h('code', null, command),
      ' on a host with access to the deployment; its result appears here.',
    );
  const shown = run.findings.length;
  return h(
    'div',
    null,
    facts([
      ['Result', verdict(run)],
      ['Ran', time(run.ranAt)],
      ['Took', took(run.durationMs)],
      ['Covered', run.covered],
      ['Ran by', run.ranBy === 'api' ? 'the API, on request from this console' : 'the capture-ledger CLI on a host'],
    ]),
    shown
      ? table(
          `Findings of the last ${title.toLowerCase()}${run.findingCount > shown ? ` (the first ${shown} of ${count(run.findingCount)})` : ''}`,
          ['Kind', 'What is wrong'],
          run.findings.map((f) => [h('code', null, f.kind), f.message]),
        )
      : null,
  );
}

function checkSection(c: OperatorCheck, reload: () => Promise<void>): HTMLElement {
  const title = CHECK_TITLES[c.name] ?? c.name;
  const id = `check-${c.name}`;
  const message = statusRegion();
  const body = h('div', null, lastRun(title, c.last, c.command));
  let action: HTMLElement;
  if (c.onDemand) {
    const button = h('button', { type: 'button', class: 'primary' }, 'Run the monitor now');
    button.addEventListener('click', async () => {
      button.setAttribute('disabled', '');
      put(message, 'Running the monitor against this deployment’s log…');
      try {
        const { body: run } = await call<CheckRun>('POST', `/v1/admin/checks/${c.name}`);
        put(message, run.ok ? 'The monitor found nothing wrong.' : 'The monitor found problems: see below.');
        await reload();
      } catch (err) {
        put(message, errorBox(err));
      } finally {
        button.removeAttribute('disabled');
      }
    });
    action = h(
      'p',
      null,
      button,
      ' Checks the latest signed checkpoint against those seen before (signature, no fork, append-only). Tiles and capture lists: run ',
      h('code', null, c.command),
      ' with --rederive on a host.',
    );
  } else {
    action = h(
      'p',
      { class: 'muted' },
      'Too heavy to run inside the API (it reads the whole ledger): run ',
      h('code', null, c.command),
      ' on a host.',
    );
  }
  return h(
    'section',
    { 'aria-labelledby': id, class: 'check' },
    h('h2', { id }, title),
    h('p', null, c.summary),
    body,
    action,
    message,
  );
}

export async function checksPage(ctx: PageContext): Promise<void> {
  const box = h('div', null, h('p', null, 'Loading…'));
  put(
    ctx.main,
    heading('Checks'),
    h(
      'p',
      null,
      'The last result of each operator check. The CLI records every run here; a run that failed to start records nothing.',
    ),
    box,
    archiveSection(ctx.signal),
  );
  const load = async () => {
    try {
      const { checks } = await get<OperatorChecks>('/v1/admin/checks', ctx.signal);
      put(
        box,
        checks.map((c) => checkSection(c, load)),
      );
    } catch (err) {
      put(box, errorBox(err));
    }
  };
  await load();
}

/** The archive's lag (GET /v1/admin/archive; docs/operators.md, The archive). */
function archiveSection(signal: AbortSignal): HTMLElement {
  const body = h('div', null, h('p', null, 'Loading…'));
  void get<ArchiveStatus>('/v1/admin/archive', signal).then(
    (a) =>
      put(
        body,
        a.configured
          ? facts([
              [
                'Not yet archived',
                `${count(a.lagEvents ?? 0)} messages, the oldest ${(a.lagSeconds ?? 0).toFixed(1)} s old`,
              ],
              [
                'Last segment',
                a.lastSegment ? `${count(a.lastSegment)}, sealed ${time(a.lastArchivedAt!)}` : 'none yet',
              ],
            ])
          : h('p', null, 'No archive is configured (ARCHIVE_URL).'),
      ),
    (err) => put(body, errorBox(err)),
  );
  return h(
    'section',
    { 'aria-labelledby': 'check-archive', class: 'check' },
    h('h2', { id: 'check-archive' }, 'Archive'),
    body,
  );
}

// ——— Dead letters ———

export async function deadLettersPage(ctx: PageContext): Promise<void> {
  const q = ctx.query;
  const filters = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter dead letters' },
    field('Tenant', h('input', { name: 'tenant', type: 'text', value: q.get('tenant') ?? '' }), 'Empty: every tenant.'),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Apply filter')),
  );
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(filters);
    ctx.navigate(`/console/operator/dead-letters${query({ tenant: v.tenant?.trim() })}`);
  });
  const list = h('div', null, h('p', null, 'Loading…'));
  put(
    ctx.main,
    heading('Webhook dead letters'),
    h(
      'p',
      null,
      'Deliveries the dispatcher gave up after every retry, newest first. The tenant can see its own on its Webhooks page.',
    ),
    filters,
    list,
  );
  try {
    const page = await get<DeadLetters>(
      `/v1/admin/webhooks/dead-letters${query({ tenant: q.get('tenant'), cursor: q.get('cursor'), limit: 50 })}`,
      ctx.signal,
    );
    put(
      list,
      page.data.length
        ? table(
            'Dead letters',
            ['When', 'Tenant', 'Webhook', 'Event', 'Attempts', 'Reason'],
            page.data.map((d) => [
              time(d.deadLetteredAt),
              h('a', { href: `/console/operator/dead-letters${query({ tenant: d.tenantId })}` }, d.tenantId),
              h('code', { class: 'hash' }, d.webhookId),
              h('span', null, d.eventType, h('br'), h('small', { class: 'muted hash' }, d.eventId)),
              count(d.attempts),
              d.reason,
            ]),
          )
        : h('p', null, q.get('cursor') ? 'No more dead letters.' : 'No dead letters: every delivery arrived.'),
      h(
        'p',
        { class: 'actions' },
        q.get('cursor')
          ? h('a', { href: `/console/operator/dead-letters${query({ tenant: q.get('tenant') })}` }, 'Newest first')
          : null,
        ' ',
        page.nextCursor
          ? h(
              'a',
              {
                href: `/console/operator/dead-letters${query({ tenant: q.get('tenant'), cursor: page.nextCursor })}`,
                class: 'button-link',
              },
              'Older dead letters',
            )
          : null,
      ),
    );
  } catch (err) {
    put(list, errorBox(err));
  }
}
