import type {
  ApiKeyList,
  ApiKeyRecord,
  Capacity,
  CreatedApiKey,
  RevokedApiKey,
  TenantList,
  TenantRow,
} from '../api-answers.js';
import { call, get, query } from '../api.js';
import { field, formValues, h, put, statusRegion } from '../dom.js';
import { errorBox } from '../errors.js';
import { bytes, count, time } from '../format.js';
import type { PageContext } from '../router.js';
import { confirmButton, facts, heading, shownOnce, table } from '../ui.js';

/** Operator pages (admin session): tenants and their quota overrides, API keys, capacity. Reports: reports.ts. */

// ——— Tenants ———

function overrideForm(t: TenantRow, onSaved: () => Promise<void>, message: HTMLElement): HTMLElement {
  const id = `ov-${t.tenantId}`;
  const form = h(
    'form',
    { class: 'inline', 'aria-label': `Quota overrides of ${t.tenantId}` },
    field(
      'Captures per month',
      h('input', {
        id: `${id}-c`,
        name: 'capturesPerMonth',
        type: 'number',
        inputmode: 'numeric',
        value: t.overrides.capturesPerMonth ?? '',
        placeholder: `tier: ${t.quotas.capturesPerMonth}`,
      }),
    ),
    field(
      'Storage bytes',
      h('input', {
        id: `${id}-s`,
        name: 'storageBytes',
        type: 'number',
        inputmode: 'numeric',
        value: t.overrides.storageBytes ?? '',
        placeholder: 'tier default',
      }),
    ),
    h('button', { type: 'submit' }, 'Save overrides'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = formValues(form);
    // Empty: no override, the tier default applies (spec 4.11: null removes the override).
    const value = (s: string | undefined) => (s === undefined || s.trim() === '' ? null : Number(s));
    try {
      await call('PUT', `/v1/admin/tenants/${encodeURIComponent(t.tenantId)}/config`, {
        quotas: { capturesPerMonth: value(v.capturesPerMonth), storageBytes: value(v.storageBytes) },
      });
      put(message, `Saved the overrides of ${t.tenantId}.`);
      await onSaved();
    } catch (err) {
      put(message, errorBox(err));
    }
  });
  return form;
}

export async function tenantsPage(ctx: PageContext): Promise<void> {
  const list = h('div', null, h('p', null, 'Loading…'));
  const message = statusRegion();
  put(
    ctx.main,
    heading('Tenants'),
    h('p', null, 'Usage this month against each quota. An empty override field means the tier default.'),
    message,
    list,
  );
  const load = async () => {
    try {
      const { data: tenants } = await get<TenantList>('/v1/admin/tenants', ctx.signal);
      put(
        list,
        tenants.length
          ? table(
              'Tenants',
              ['Tenant', 'Tier', 'Captures this month', 'Storage this month', 'API calls', 'Overrides'],
              tenants.map((t) => [
                h(
                  'span',
                  null,
                  t.tenantId,
                  h('br'),
                  h('a', { href: `/console/operator/keys${query({ tenant: t.tenantId })}` }, 'keys'),
                ),
                t.tier,
                `${count(t.usage.captureCount)} of ${count(t.quotas.capturesPerMonth)}${t.overrides.capturesPerMonth !== null ? ' (override)' : ''}`,
                `${bytes(t.usage.storageBytes)} of ${bytes(t.quotas.storageBytes)}${t.overrides.storageBytes !== null ? ' (override)' : ''}`,
                count(t.usage.apiCallCount),
                overrideForm(t, load, message),
              ]),
              'tenants',
            )
          : h('p', null, 'No tenants yet: create an API key for one.'),
      );
    } catch (err) {
      put(list, errorBox(err));
    }
  };
  await load();
}

// ——— API keys (spec 4.11) ———

const SCOPES: ApiKeyRecord['scopes'] = ['capture', 'read', 'admin'];

/** A key as the list shows it: one listed, or one just created (whose answer does not name its creator). */
type ShownKey = Omit<ApiKeyRecord, 'createdBy'>;

function keyFilters(q: URLSearchParams): HTMLFormElement {
  return h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter keys' },
    field('Tenant', h('input', { name: 'tenant', type: 'text', value: q.get('tenant') ?? '' })),
    h(
      'div',
      { class: 'field check' },
      h('input', {
        type: 'checkbox',
        name: 'include',
        value: 'revoked',
        id: 'inc-revoked',
        checked: q.get('include') === 'revoked',
      }),
      h('label', { for: 'inc-revoked' }, 'Include revoked keys'),
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Apply filters')),
  );
}

/** The form that creates a key: for the tenant filtered on, if any; every scope but admin ticked. */
function newKeyForm(q: URLSearchParams): HTMLFormElement {
  return h(
    'form',
    { class: 'stack' },
    field('Tenant id', h('input', { name: 'tenantId', type: 'text', required: true, value: q.get('tenant') ?? '' })),
    field('Key name', h('input', { name: 'name', type: 'text', required: true })),
    h(
      'fieldset',
      null,
      h('legend', null, 'Scopes'),
      SCOPES.map((s) =>
        h(
          'div',
          { class: 'field check' },
          h('input', { type: 'checkbox', name: 'scopes', value: s, id: `scope-${s}`, checked: s !== 'admin' }),
          h('label', { for: `scope-${s}` }, s),
        ),
      ),
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create key')),
  );
}

/** One row of the key list; an active key has a button that revokes it. */
function keyRow(k: ShownKey, revoke: (k: ShownKey) => Promise<void>): (Node | string)[] {
  return [
    h('span', null, k.name, h('br'), h('small', { class: 'muted hash' }, k.keyHash)),
    k.tenantId,
    k.scopes.join(', '),
    time(k.createdAt),
    k.revoked ? h('span', null, 'revoked ', time(k.revokedAt)) : 'active',
    k.revoked ? '' : confirmButton('Revoke', `Revoke "${k.name}"`, () => revoke(k)),
  ];
}

export async function keysPage(ctx: PageContext): Promise<void> {
  const q = ctx.query;
  const filters = keyFilters(q);
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(filters);
    ctx.navigate(`/console/operator/keys${query({ tenant: v.tenant?.trim(), include: v.include })}`);
  });
  const list = h('section', { 'aria-labelledby': 'keys-heading' }, h('h2', { id: 'keys-heading' }, 'Keys'));
  const message = statusRegion();
  const created = h('div');
  const form = newKeyForm(q);
  put(
    ctx.main,
    heading('API keys'),
    filters,
    list,
    h(
      'section',
      { 'aria-labelledby': 'new-key-heading' },
      h('h2', { id: 'new-key-heading' }, 'New key'),
      form,
      created,
      message,
    ),
  );

  // The key endpoints allow 5 requests per 60 s per address (spec 4.11), listing included: the list is read once and
  // kept up to date from the answers of create and revoke, never read again after each.
  let keys: ShownKey[] = [];
  const revoke = async (k: ShownKey) => {
    try {
      const { body } = await call<RevokedApiKey>('DELETE', `/v1/admin/keys/${k.keyHash}`);
      keys = keys.map((x) => (x.keyHash === k.keyHash ? { ...x, ...body } : x));
      put(message, `Revoked "${k.name}". Sessions signed in with it end within 60 s.`);
      render();
    } catch (err) {
      put(message, errorBox(err));
    }
  };
  const render = () =>
    put(
      list,
      h('h2', { id: 'keys-heading' }, 'Keys'),
      keys.length
        ? table(
            'API keys',
            ['Name', 'Tenant', 'Scopes', 'Created', 'State', ''],
            keys.map((k) => keyRow(k, revoke)),
          )
        : h('p', null, 'No keys match.'),
    );

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const d = new FormData(form);
    try {
      const { body } = await call<CreatedApiKey>('POST', '/v1/admin/keys', {
        tenantId: String(d.get('tenantId') ?? '').trim(),
        name: String(d.get('name') ?? ''),
        scopes: d.getAll('scopes').map(String),
      });
      put(message);
      put(
        created,
        shownOnce(`Key "${body.name}" for ${body.tenantId}`, body.key ?? '', body.warning ?? 'Store this key now.'),
      );
      form.reset();
      const filter = q.get('tenant');
      if (!filter || filter === body.tenantId) {
        const { key: _shownOnce, warning: _note, ...record } = body;
        keys = [record, ...keys];
        render();
      }
    } catch (err) {
      put(message, errorBox(err));
    }
  });
  try {
    keys = (
      await get<ApiKeyList>(
        `/v1/admin/keys${query({ tenant: q.get('tenant'), include: q.get('include') })}`,
        ctx.signal,
      )
    ).data;
    render();
  } catch (err) {
    put(list, h('h2', { id: 'keys-heading' }, 'Keys'), errorBox(err));
  }
}

// ——— Capacity ———

export async function capacityPage(ctx: PageContext): Promise<void> {
  const box = h('div', { 'aria-live': 'polite' }, h('p', null, 'Loading…'));
  const refresh = h('button', { type: 'button' }, 'Refresh');
  put(
    ctx.main,
    heading('Capacity'),
    h(
      'p',
      null,
      'Capture jobs waiting for a browser worker, and those running now. Past the maximum backlog the API answers 503.',
    ),
    refresh,
    box,
  );
  const load = async () => {
    try {
      const c = await get<Capacity>('/v1/admin/capacity', ctx.signal);
      put(
        box,
        h(
          'div',
          { class: 'meter-row' },
          h('label', { for: 'backlog-meter' }, 'Job backlog'),
          h('meter', {
            id: 'backlog-meter',
            min: '0',
            max: String(Math.max(1, c.backlogMax)),
            value: String(c.jobBacklog),
            high: String(c.backlogMax * 0.8),
          }),
          h('span', null, `${count(c.jobBacklog)} of ${count(c.backlogMax)}`),
        ),
        facts([
          ['Waiting', count(c.jobBacklog)],
          ['In flight', count(c.inFlight)],
          ['Maximum backlog', count(c.backlogMax)],
          // Only the answering process's setting is known: workers elsewhere do not report theirs (yet).
          [
            'Worker concurrency',
            c.workerConcurrency === null
              ? 'not known here: this API process runs no worker (each worker’s WORKER_CONCURRENCY is in its own environment)'
              : `at most $count(c.workerConcurrency)captures at once in this process's worker (WORKER_CONCURRENCY)`,
          ],
          ['As of', time(new Date().toISOString())],
        ]),
      );
    } catch (err) {
      put(box, errorBox(err));
    }
  };
  refresh.addEventListener('click', load);
  await load();
}
