import type { Deliveries, RegisteredWebhook, Webhook, WebhookList, WebhookPing } from '../api-answers.js';
import { call, get } from '../api.js';
import { field, h, put, statusRegion } from '../dom.js';
import { errorBox } from '../errors.js';
import { time } from '../format.js';
import type { PageContext } from '../router.js';
import { confirmButton, heading, shownOnce, table } from '../ui.js';

/**
 * Webhooks (spec 4.13): list, create (the secret shown once), delete, ping, and a webhook's deliveries with their
 * attempts and its dead letters (GET /v1/webhooks/{id}/deliveries).
 */
const EVENTS: Webhook['events'] = ['capture.complete', 'capture.failed'];

/** The form that registers a webhook: its name, receiver URL and events. */
function webhookForm(): HTMLFormElement {
  return h(
    'form',
    { class: 'stack' },
    field('Name', h('input', { name: 'name', type: 'text', required: true })),
    field(
      'Receiver URL',
      h('input', { name: 'url', type: 'url', required: true, inputmode: 'url', placeholder: 'https://' }),
    ),
    h(
      'fieldset',
      null,
      h('legend', null, 'Events'),
      EVENTS.map((ev) =>
        h(
          'div',
          { class: 'field check' },
          h('input', { type: 'checkbox', name: 'events', value: ev, id: `ev-${ev}`, checked: true }),
          h('label', { for: `ev-${ev}` }, ev),
        ),
      ),
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create webhook')),
  );
}

function attemptsTable(attempts: Deliveries['data']): HTMLElement {
  return attempts.length
    ? table(
        'Delivery attempts, newest first',
        ['Event', 'Attempt', 'Outcome', 'HTTP', 'Latency', 'When', 'Next attempt'],
        attempts.map((a) => [
          h('span', null, a.eventType, h('br'), h('small', { class: 'muted' }, a.eventId)),
          a.attempt,
          h(
            'span',
            { class: a.outcome === 'delivered' ? 'check-pass' : 'check-fail' },
            a.outcome,
            a.detail ? `: ${a.detail}` : '',
          ),
          a.httpStatus ?? '—',
          a.latencyMs === null ? '—' : `${a.latencyMs} ms`,
          time(a.attemptedAt),
          time(a.nextAttemptAt),
        ]),
      )
    : h('p', null, 'No deliveries yet.');
}

function deadLettersTable(deadLetters: Deliveries['deadLetters']): HTMLElement {
  return deadLetters.length
    ? table(
        'Dead letters: events given up after every attempt',
        ['Event', 'Attempts', 'Reason', 'When'],
        deadLetters.map((x) => [
          h('span', null, x.eventType, h('br'), h('small', { class: 'muted' }, x.eventId)),
          x.attempts,
          x.reason,
          time(x.deadLetteredAt),
        ]),
      )
    : h('p', null, 'No dead letters.');
}

/** A webhook's delivery attempts and dead letters, shown in `section` (focused once loaded). */
async function showDeliveries(section: HTMLElement, w: Webhook, signal: AbortSignal): Promise<void> {
  section.hidden = false;
  put(section, h('h2', { id: 'del-heading' }, `Deliveries of "${w.name}"`), h('p', null, 'Loading…'));
  try {
    const d = await get<Deliveries>(`/v1/webhooks/${encodeURIComponent(w.id)}/deliveries`, signal);
    put(
      section,
      h('h2', { id: 'del-heading', tabindex: '-1' }, `Deliveries of "${w.name}"`),
      attemptsTable(d.data),
      deadLettersTable(d.deadLetters),
    );
    section.querySelector<HTMLElement>('h2')?.focus();
  } catch (err) {
    put(section, h('h2', { id: 'del-heading' }, `Deliveries of "${w.name}"`), errorBox(err));
  }
}

/** Pings a webhook's receiver and says how it answered in `out`. */
async function ping(w: Webhook, out: HTMLElement): Promise<void> {
  put(out, 'Pinging…');
  try {
    const { body } = await call<WebhookPing>('POST', `/v1/webhooks/${encodeURIComponent(w.id)}/ping`);
    put(
      out,
      body.success
        ? `Answered HTTP ${body.httpStatus} in ${body.latencyMs} ms.`
        : `Failed${body.httpStatus ? ` (HTTP ${body.httpStatus})` : ''}: ${body.detail ?? 'no answer'}.`,
    );
  } catch (err) {
    put(out, errorBox(err));
  }
}

/** One row of the webhook list: what it is, and its ping, deliveries and delete buttons. */
function webhookRow(
  w: Webhook,
  actions: { showDeliveries: (w: Webhook) => void; remove: (w: Webhook) => Promise<void> },
): (Node | string)[] {
  const out = h('div', { class: 'small', role: 'status' });
  const pingButton = h('button', { type: 'button' }, 'Ping');
  pingButton.addEventListener('click', () => ping(w, out));
  const deliveriesButton = h('button', { type: 'button' }, 'Deliveries');
  deliveriesButton.addEventListener('click', () => actions.showDeliveries(w));
  return [
    w.name,
    h('span', { class: 'url' }, w.url),
    w.events.join(', '),
    time(w.createdAt),
    h(
      'div',
      { class: 'row-actions' },
      pingButton,
      deliveriesButton,
      confirmButton('Delete', `Delete "${w.name}"`, () => actions.remove(w)),
      out,
    ),
  ];
}

export async function webhooksPage(ctx: PageContext): Promise<void> {
  const list = h('section', { 'aria-labelledby': 'list-heading' });
  const message = statusRegion();
  const created = h('div');
  const form = webhookForm();
  const deliveries = h('section', { 'aria-labelledby': 'del-heading', hidden: true });
  put(
    ctx.main,
    heading('Webhooks'),
    list,
    deliveries,
    h(
      'section',
      { 'aria-labelledby': 'new-heading' },
      h('h2', { id: 'new-heading' }, 'New webhook'),
      form,
      created,
      message,
    ),
  );

  const actions = {
    showDeliveries: (w: Webhook) => showDeliveries(deliveries, w, ctx.signal),
    remove: async (w: Webhook) => {
      try {
        await call('DELETE', `/v1/webhooks/${encodeURIComponent(w.id)}`);
        put(message, `Deleted "${w.name}".`);
        deliveries.hidden = true;
        await load();
      } catch (err) {
        put(message, errorBox(err));
      }
    },
  };
  const load = async () => {
    try {
      const { data } = await get<WebhookList>('/v1/webhooks', ctx.signal);
      put(
        list,
        h('h2', { id: 'list-heading' }, 'Your webhooks'),
        data.length
          ? table(
              'Webhooks',
              ['Name', 'URL', 'Events', 'Created', ''],
              data.map((w) => webhookRow(w, actions)),
            )
          : h('p', null, 'No webhooks yet.'),
      );
    } catch (err) {
      put(list, h('h2', { id: 'list-heading' }, 'Your webhooks'), errorBox(err));
    }
  };

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const d = new FormData(form);
    try {
      const { body } = await call<RegisteredWebhook>('POST', '/v1/webhooks', {
        name: String(d.get('name') ?? ''),
        url: String(d.get('url') ?? ''),
        events: d.getAll('events').map(String),
      });
      put(message);
      put(
        created,
        shownOnce(`Signing secret of "${body.name}"`, body.secret ?? '', body.warning ?? 'Store this secret now.'),
      );
      form.reset();
      await load();
    } catch (err) {
      put(message, errorBox(err));
    }
  });

  await load();
}
