import type { CreatedSchedule, CronPreview, Schedule, ScheduleList } from '../api-answers.js';
import { call, get, query } from '../api.js';
import { field, formValues, h, put, statusRegion } from '../dom.js';
import { errorBox } from '../errors.js';
import { time, utcText } from '../format.js';
import type { PageContext } from '../router.js';
import { confirmButton, heading, table } from '../ui.js';

/**
 * Schedules (spec 4.12): list, create, delete. While the cron expression is typed, the next five runs come from the
 * server's own cron reading (GET /v1/schedules/preview), shown in UTC as the schedule runs in UTC; the console never
 * parses cron itself.
 */
function scheduleForm(cron: HTMLInputElement, preview: HTMLElement): HTMLFormElement {
  return h(
    'form',
    { class: 'stack' },
    field('Name', h('input', { name: 'name', type: 'text', required: true })),
    field('URL to capture', h('input', { name: 'url', type: 'url', required: true, inputmode: 'url' })),
    field('When (cron, UTC)', cron, 'Five fields: minute hour day-of-month month day-of-week, in UTC.'),
    preview,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create schedule')),
  );
}

/**
 * Shows in `preview` the next five runs of the expression typed in `cron`, as the server reads it, once typing
 * pauses. Returns what clears the preview (after the form is reset).
 */
function previewWhileTyping(cron: HTMLInputElement, preview: HTMLElement, signal: AbortSignal): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let asked = '';
  cron.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const expr = cron.value.trim();
      if (!expr || expr === asked) return;
      asked = expr;
      try {
        const { nextRuns: runs } = await get<CronPreview>(`/v1/schedules/preview${query({ cron: expr })}`, signal);
        if (cron.value.trim() !== expr) return;
        put(
          preview,
          h('p', null, 'Next five runs:'),
          h(
            'ol',
            { class: 'runs' },
            runs.map((r) => h('li', null, h('time', { datetime: r }, utcText(r)))),
          ),
        );
      } catch (err) {
        if ((err as Error).name === 'AbortError') return;
        if (cron.value.trim() === expr) put(preview, errorBox(err));
      }
    }, 400);
  });
  return () => {
    put(preview);
    asked = '';
  };
}

/** One row of the schedule list: what it runs and when, its last result, and links to its captures and timeline. */
function scheduleRow(s: Schedule, remove: (s: Schedule) => Promise<void>): (Node | string)[] {
  return [
    s.name,
    h('span', { class: 'url' }, s.url),
    h('code', null, s.cron),
    time(s.nextRunAt),
    time(s.lastRunAt),
    s.lastCaptureId
      ? h('a', { href: `/console/captures/${encodeURIComponent(s.lastCaptureId)}` }, s.lastCaptureStatus ?? 'capture')
      : (s.lastCaptureStatus ?? '—'),
    h(
      'div',
      { class: 'row-actions' },
      h('a', { href: `/console/captures${query({ schedule_id: s.id })}` }, 'Its captures'),
      h('a', { href: `/console/schedules/${encodeURIComponent(s.id)}/timeline` }, 'Timeline'),
      confirmButton('Delete', `Delete "${s.name}"`, () => remove(s)),
    ),
  ];
}

export async function schedulesPage(ctx: PageContext): Promise<void> {
  const list = h('section', { 'aria-labelledby': 'list-heading' }, h('h2', { id: 'list-heading' }, 'Your schedules'));
  const cron = h('input', {
    name: 'cron',
    type: 'text',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: '0 6 * * 1',
  });
  const preview = h('div', { class: 'preview', 'aria-live': 'polite' });
  const message = statusRegion();
  const form = scheduleForm(cron, preview);
  put(
    ctx.main,
    heading('Schedules'),
    list,
    h('section', { 'aria-labelledby': 'new-heading' }, h('h2', { id: 'new-heading' }, 'New schedule'), form, message),
  );
  const clearPreview = previewWhileTyping(cron, preview, ctx.signal);

  const remove = async (s: Schedule) => {
    try {
      await call('DELETE', `/v1/schedules/${encodeURIComponent(s.id)}`);
      put(message, `Deleted "${s.name}".`);
      await load();
    } catch (err) {
      put(message, errorBox(err));
    }
  };
  const load = async () => {
    try {
      const { data } = await get<ScheduleList>('/v1/schedules', ctx.signal);
      put(
        list,
        h('h2', { id: 'list-heading' }, 'Your schedules'),
        data.length
          ? table(
              'Schedules',
              ['Name', 'URL', 'Cron (UTC)', 'Next run', 'Last run', 'Last result', ''],
              data.map((s) => scheduleRow(s, remove)),
            )
          : h('p', null, 'No schedules yet.'),
      );
    } catch (err) {
      put(list, h('h2', { id: 'list-heading' }, 'Your schedules'), errorBox(err));
    }
  };

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = formValues(form);
    try {
      const { body } = await call<CreatedSchedule>('POST', '/v1/schedules', { name: v.name, url: v.url, cron: v.cron });
      put(message, `Created "${body.name}"; its first run is `, time(body.nextRunAt), '.');
      form.reset();
      clearPreview();
      await load();
    } catch (err) {
      put(message, errorBox(err));
    }
  });

  await load();
}
