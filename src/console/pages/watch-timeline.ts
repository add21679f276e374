import type { Schedule, ScheduleRun, ScheduleRuns } from '../api-answers.js';
import { call, get, query } from '../api.js';
import { h, put } from '../dom.js';
import { errorBox } from '../errors.js';
import { time } from '../format.js';
import type { PageContext } from '../router.js';
import { heading } from '../ui.js';

/**
 * A watched URL over time (docs/watch.md): a schedule's runs newest first, each saying whether it
 * changed since the run before; a change shows the two screenshots side by side and the diff image over the newer
 * one. Reads GET /v1/schedules/{id}, /runs and the diff routes, like any client; signs a diff's evidence or
 * certificate only when asked (a button: POST).
 */

const screenshot = (captureId: string) => `/v1/captures/${encodeURIComponent(captureId)}/artifacts/screenshot`;

function summaryText(s: Record<string, number> | null): string {
  if (!s) return '';
  return `${s.textBlocksChanged ?? 0} text blocks changed, ${s.textBlocksAdded ?? 0} added, ${s.textBlocksRemoved ?? 0} removed; ${s.headersChanged ?? 0} headers; ${s.resourcesChanged ?? 0} resources changed; ${((s.pixelChangeRatio ?? 0) * 100).toFixed(2)} % of pixels.`;
}

/**
 * The diff's signed evidence or certificate: made by a POST (it signs, and records the diff in the ledger and the
 * public log), then a link to download what was made (GET serves it and writes nothing).
 */
function signedDownload(path: string, label: { make: string; link: string }): HTMLElement {
  const holder = h('span', null);
  // Inline (the links sit in a paragraph): a span, not statusRegion's div.
  const message = h('span', { role: 'status', 'aria-live': 'polite' });
  const button = h('button', { type: 'button' }, label.make);
  button.addEventListener('click', async () => {
    button.setAttribute('disabled', '');
    put(message, 'Signing…');
    try {
      await call<unknown>('POST', path);
      put(holder, h('a', { href: path, download: '' }, label.link));
    } catch (err) {
      put(message, errorBox(err));
      button.removeAttribute('disabled');
    }
  });
  put(holder, button, message);
  return holder;
}

function runEntry(run: ScheduleRun, url: string): HTMLElement {
  const c = run.comparison;
  const what =
    run.status === 'failed'
      ? `Failed (${run.failureReason ?? 'unknown reason'}): ${run.error ?? ''}`
      : run.status === 'pending'
        ? 'Running'
        : !c
          ? 'Nothing to compare with'
          : c.notified
            ? 'Changed'
            : c.changed
              ? 'Changed below the watch thresholds'
              : 'No change';
  const diffQuery = c ? query({ base: c.baseCaptureId }) : '';
  return h(
    'li',
    { class: 'run' },
    h('h3', null, time(run.createdAt), ` — ${what}`),
    c?.notified
      ? h(
          'div',
          null,
          h('p', null, summaryText(c.summary)),
          h(
            'div',
            { class: 'pair' },
            h(
              'figure',
              null,
              h('img', { class: 'shot', src: screenshot(c.baseCaptureId), alt: `Before: ${url}`, loading: 'lazy' }),
              h('figcaption', null, 'Before'),
            ),
            h(
              'figure',
              null,
              h('img', { class: 'shot', src: screenshot(run.captureId), alt: `After: ${url}`, loading: 'lazy' }),
              h('figcaption', null, 'After'),
            ),
          ),
          h(
            'figure',
            null,
            h('img', {
              class: 'shot',
              src: `/v1/captures/${encodeURIComponent(run.captureId)}/diff.png${diffQuery}`,
              alt: `What changed, marked over the later screenshot of ${url}`,
              loading: 'lazy',
            }),
            h('figcaption', null, 'What changed (red), over the later screenshot'),
          ),
          h(
            'p',
            null,
            h('a', { href: `/v1/captures/${encodeURIComponent(run.captureId)}/diff${diffQuery}` }, 'The diff (JSON)'),
            ' · ',
            signedDownload(`/v1/captures/${encodeURIComponent(run.captureId)}/diff/evidence${diffQuery}`, {
              make: 'Sign the evidence',
              link: 'Signed evidence (JSON)',
            }),
            ' · ',
            signedDownload(`/v1/captures/${encodeURIComponent(run.captureId)}/diff/certificate${diffQuery}`, {
              make: 'Issue a certificate (PDF)',
              link: 'Certificate (PDF)',
            }),
          ),
        )
      : null,
    h('p', null, h('a', { href: `/console/captures/${encodeURIComponent(run.captureId)}` }, 'The capture')),
  );
}

export async function watchTimelinePage(ctx: PageContext): Promise<void> {
  const scheduleId = ctx.params[0] ?? '';
  put(ctx.main, heading('Watch timeline'), h('p', null, 'Loading…'));
  try {
    const schedule = await get<Schedule>(`/v1/schedules/${encodeURIComponent(scheduleId)}`, ctx.signal);
    const { data } = await get<ScheduleRuns>(`/v1/schedules/${encodeURIComponent(scheduleId)}/runs`, ctx.signal);
    put(
      ctx.main,
      heading(`Watch timeline: ${schedule.name}`),
      h('p', null, h('span', { class: 'url' }, schedule.url)),
      data.length
        ? h(
            'ol',
            { class: 'timeline' },
            data.map((run) => runEntry(run, schedule.url)),
          )
        : h('p', null, 'No runs yet.'),
    );
  } catch (err) {
    if ((err as Error).name === 'AbortError') return;
    put(ctx.main, heading('Watch timeline'), errorBox(err));
  }
}
