import { h } from './dom.js';
import { time } from './format.js';

/** Small pieces every page uses. */

export const heading = (text: string) => h('h1', { tabindex: '-1' }, text);

export function statusBadge(status: string): HTMLElement {
  return h('span', { class: `badge status-${status}` }, status);
}

/** A table with a caption and column headers (scope=col), rows of cells. */
export function table(
  caption: string,
  headers: string[],
  rows: (Node | string | number | null)[][],
  cls = '',
): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: cls },
      h('caption', null, caption),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          headers.map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((cells) =>
          h(
            'tr',
            null,
            cells.map((c) => h('td', null, c ?? '—')),
          ),
        ),
      ),
    ),
  );
}

/** Label/value pairs as a description list. */
export function facts(pairs: [string, Node | string | number | null | undefined][]): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    pairs.filter(([, v]) => v !== undefined).flatMap(([k, v]) => [h('dt', null, k), h('dd', null, v ?? '—')]),
  );
}

/** A button that asks once more before it acts: a second, explicit "Confirm" (no window.confirm). */
export function confirmButton(label: string, confirmLabel: string, action: () => Promise<void>): HTMLElement {
  const wrap = h('span', { class: 'confirm' });
  const start = h('button', { type: 'button', class: 'danger' }, label);
  const show = (...nodes: Node[]) => wrap.replaceChildren(...nodes);
  const yes = h('button', { type: 'button', class: 'danger' }, confirmLabel);
  const no = h('button', { type: 'button' }, 'Cancel');
  start.addEventListener('click', () => {
    show(yes, no);
    yes.focus();
  });
  no.addEventListener('click', () => {
    show(start);
    start.focus();
  });
  yes.addEventListener('click', async () => {
    yes.setAttribute('disabled', '');
    try {
      await action();
    } finally {
      yes.removeAttribute('disabled');
    }
  });
  show(start);
  return wrap;
}

/** A secret shown once, with a copy button. */
export function shownOnce(label: string, secret: string, warning: string): HTMLElement {
  const copy = h('button', { type: 'button' }, 'Copy');
  const code = h('code', { class: 'secret' }, secret);
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(secret);
      copy.textContent = 'Copied';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(code);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      copy.textContent = 'Selected: copy it now';
    }
  });
  return h(
    'div',
    { class: 'once', role: 'status' },
    h('p', null, h('strong', null, label)),
    h('p', null, code, ' ', copy),
    h('p', null, warning),
  );
}

export const when = time;
