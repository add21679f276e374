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
const EVENTS = ['capture.complete', 'capture.failed'];

export async function webhooksPage(ctx: PageContext): Promise<void> {
  const list = h('section', { 'aria-labelledby': 'list-heading' });
  const message = statusRegion();
  const created = h('div');
  const form = h(
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

  const showDeliveries = async (w: Webhook) => {
    deliveries.hidden = false;
    put(deliveries, h('h2', { id: 'del-heading' }, `Deliveries of "${w.name}"`), h('p', null, 'Loading…'));
    try {
      const d = await get<Deliveries>(`/v1/webhooks/${encodeURIComponent(w.id)}/deliveries`, ctx.signal);
      put(
        deliveries,
        h('h2', { id: 'del-heading', tabindex: '-1' }, `Deliveries of "${w.name}"`),
        d.data.length
          ? table(
              'Delivery attempts, newest first',
              ['Event', 'Attempt', 'Outcome', 'HTTP', 'Latency', 'When', 'Next attempt'],
              d.data.map((a) => [
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
          : h('p', null, 'No deliveries yet.'),
        d.deadLetters.length
          ? table(
              'Dead letters: events given up after every attempt',
              ['Event', 'Attempts', 'Reason', 'When'],
              d.deadLetters.map((x) => [
                h('span', null, x.eventType, h('br'), h('small', { class: 'muted' }, x.eventId)),
                x.attempts,
                x.reason,
                time(x.deadLetteredAt),
              ]),
            )
          : h('p', null, 'No dead letters.'),
      );
      deliveries.querySelector<HTMLElement>('h2')?.focus();
    } catch (err) {
      put(deliveries, h('h2', { id: 'del-heading' }, `Deliveries of "${w.name}"`), errorBox(err));
    }
  };

  const ping = async (w: Webhook, out: HTMLElement) => {
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
              data.map((w) => {
                const out = h('div', { class: 'small', role: 'status' });
                const pingButton = h('button', { type: 'button' }, 'Ping');
                pingButton.addEventListener('click', () => ping(w, out));
                const deliveriesButton = h('button', { type: 'button' }, 'Deliveries');
                deliveriesButton.addEventListener('click', () => showDeliveries(w));
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
                    confirmButton('Delete', `Delete "${w.name}"`, async () => {
                      try {
                        await call('DELETE', `/v1/webhooks/${encodeURIComponent(w.id)}`);
                        put(message, `Deleted "${w.name}".`);
                        deliveries.hidden = true;
                        await load();
                      } catch (err) {
                        put(message, errorBox(err));
                      }
                    }),
                    out,
                  ),
                ];
              }),
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
