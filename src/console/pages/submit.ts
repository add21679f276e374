import { ApiError, call, get } from '../api.js';
import { field, h, put, statusRegion } from '../dom.js';
import { errorBox, errorSentence } from '../errors.js';
import { count, time } from '../format.js';
import type { PageContext } from '../router.js';
import type { AccountUsage, BatchAnswer, CaptureSummary, SubmittedCapture } from '../api-answers.js';
import { heading, statusBadge } from '../ui.js';
import { watchPending } from './captures.js';

/**
 * Submit (spec 4.3, 4.5): one URL with its options is POST /v1/captures; several lines are one POST
 * /v1/captures/batch with the same options on each item, and each item's answer is shown. The options go as typed:
 * the server checks them and its 400 names the field. The quota left is the API's (GET /v1/account/usage before,
 * the X-Quota-* headers after).
 */
function quotaLine(usage: AccountUsage): HTMLElement {
  const c = usage.captures;
  return h(
    'p',
    { class: 'quota' },
    `${count(c.remaining)} of ${count(c.limit)} captures left this month (${usage.tierDisplay}); the quota resets `,
    time(usage.resetsAt),
    '.',
  );
}

function options(form: HTMLFormElement): Record<string, unknown> | undefined {
  const d = new FormData(form);
  const text = (n: string) => String(d.get(n) ?? '').trim();
  const numberOf = (n: string) => (text(n) === '' ? undefined : Number(text(n)));
  const o: Record<string, unknown> = {};
  const width = numberOf('width');
  const height = numberOf('height');
  if (width !== undefined || height !== undefined) o.viewport = { width, height };
  if (numberOf('deviceScaleFactor') !== undefined) o.deviceScaleFactor = numberOf('deviceScaleFactor');
  if (text('fullPage')) o.fullPage = text('fullPage') === 'yes';
  if (text('waitForSelector')) o.waitForSelector = text('waitForSelector');
  if (numberOf('delayMs') !== undefined) o.delayMs = numberOf('delayMs');
  if (d.get('pdf')) o.pdf = true;
  return Object.keys(o).length ? o : undefined;
}

/** The capture options, folded away under the URLs. */
function optionFields(): HTMLElement {
  return h(
    'details',
    { class: 'options' },
    h('summary', null, 'Capture options'),
    h(
      'div',
      { class: 'grid' },
      field(
        'Viewport width (CSS px)',
        h('input', { name: 'width', type: 'number', inputmode: 'numeric' }),
        'Default 1280.',
      ),
      field(
        'Viewport height (CSS px)',
        h('input', { name: 'height', type: 'number', inputmode: 'numeric' }),
        'Default 800.',
      ),
      field(
        'Device scale factor',
        h('input', { name: 'deviceScaleFactor', type: 'number', step: 'any' }),
        'Default 1.',
      ),
      field(
        'Screenshot',
        h(
          'select',
          { name: 'fullPage' },
          h('option', { value: '' }, 'Default (full page)'),
          h('option', { value: 'yes' }, 'Full page'),
          h('option', { value: 'no' }, 'Viewport only'),
        ),
      ),
      field('Wait for CSS selector', h('input', { name: 'waitForSelector', type: 'text' }), 'Waited for after load.'),
      field(
        'Extra delay (ms)',
        h('input', { name: 'delayMs', type: 'number', inputmode: 'numeric' }),
        'After the page settles; default 0.',
      ),
      h(
        'div',
        { class: 'field check' },
        h('input', { type: 'checkbox', name: 'pdf', id: 'opt-pdf' }),
        h('label', { for: 'opt-pdf' }, 'Also print the page to PDF'),
      ),
    ),
  );
}

function submitForm(urls: HTMLTextAreaElement): HTMLFormElement {
  return h(
    'form',
    { class: 'stack', 'aria-labelledby': 'submit-heading' },
    field(
      'URL to capture, or several, one per line',
      urls,
      'One line is one capture; several lines are submitted as one batch.',
    ),
    optionFields(),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Submit')),
  );
}

/** One URL as submitted: accepted (an id, watched until it completes) or refused (the API's error). */
interface Submitted {
  id?: string;
  url: string;
  status: 'pending' | 'refused';
  error?: unknown;
}

/** A submitted URL in the results list; an accepted one is redrawn as its capture's status changes. */
function resultItem(ctx: PageContext, c: Submitted): HTMLElement {
  const li = h('li', { class: 'result' });
  const draw = (s: CaptureSummary) =>
    put(
      li,
      statusBadge(s.status),
      ' ',
      h('a', { href: `/console/captures/${encodeURIComponent(s.id)}` }, s.url),
      s.error ? h('div', { class: 'small' }, s.error) : null,
    );
  if (c.id) {
    const summary: CaptureSummary = { id: c.id, url: c.url, status: 'pending', createdAt: new Date().toISOString() };
    draw(summary);
    watchPending(ctx, summary, draw);
  } else {
    put(
      li,
      statusBadge('refused'),
      ' ',
      h('span', { class: 'url' }, c.url),
      h('div', { class: 'small' }, ...errorSentence(c.error)),
    );
  }
  return li;
}

/**
 * Submits the URLs: one is POST /v1/captures, several one POST /v1/captures/batch. Says what became of each, in the
 * order given, with a sentence for the whole and the answer's headers (X-Quota-*).
 */
async function submit(
  lines: string[],
  opts: Record<string, unknown> | undefined,
): Promise<{ submitted: Submitted[]; said: string; headers: Headers }> {
  if (lines.length === 1) {
    const answer = await call<SubmittedCapture>('POST', '/v1/captures', {
      url: lines[0],
      ...(opts ? { options: opts } : {}),
    });
    return {
      submitted: [{ id: answer.body.id, url: lines[0]!, status: 'pending' }],
      said: 'Submitted. The capture is pending; this page shows when it completes.',
      headers: answer.headers,
    };
  }
  const answer = await call<BatchAnswer>('POST', '/v1/captures/batch', {
    urls: lines.map((url) => ({ url, ...(opts ? { options: opts } : {}) })),
  });
  const { items, summary } = answer.body;
  return {
    submitted: items.map((it) =>
      // An accepted item (202) has an id; a refused one, the error body.
      'id' in it
        ? { id: it.id, url: it.url, status: 'pending' }
        : { url: it.url, status: 'refused', error: new ApiError(it.status, it.error, null, '/v1/captures/batch') },
    ),
    said: `Batch submitted: ${summary.accepted} of ${summary.total} accepted, ${summary.failed} refused.`,
    headers: answer.headers,
  };
}

/** The quota left as a submission's answer gives it (X-Quota-Remaining of X-Quota-Limit), or null without them. */
function quotaAfter(headers: Headers): HTMLElement | null {
  const remaining = headers.get('X-Quota-Remaining');
  const limit = headers.get('X-Quota-Limit');
  if (!remaining || !limit) return null;
  return h('p', { class: 'quota' }, `${count(Number(remaining))} of ${count(Number(limit))} captures left this month.`);
}

export async function submitPage(ctx: PageContext): Promise<void> {
  const quota = h('div', { class: 'quota-box' }, h('p', null, 'Loading your quota…'));
  const urls = h('textarea', { name: 'urls', rows: '4', required: true, spellcheck: 'false', autocomplete: 'off' });
  const form = submitForm(urls);
  const message = statusRegion();
  const results = h('ol', { class: 'results', 'aria-label': 'Submitted captures' });
  put(
    ctx.main,
    heading('Submit a capture'),
    quota,
    h('h2', { id: 'submit-heading', class: 'visually-hidden' }, 'New capture'),
    form,
    message,
    results,
  );

  get<AccountUsage>('/v1/account/usage', ctx.signal)
    .then((u) => put(quota, quotaLine(u)))
    .catch((err) => put(quota, errorBox(err)));

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const lines = urls.value
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    if (lines.length === 0) return;
    const opts = options(form);
    const button = form.querySelector('button[type=submit]')!;
    button.setAttribute('disabled', '');
    put(message, 'Submitting…');
    try {
      const { submitted, said, headers } = await submit(lines, opts);
      for (const c of [...submitted].reverse()) results.prepend(resultItem(ctx, c));
      put(message, said);
      urls.value = '';
      const left = quotaAfter(headers);
      if (left) put(quota, left);
    } catch (err) {
      put(message, errorBox(err));
    } finally {
      button.removeAttribute('disabled');
    }
  });
}
