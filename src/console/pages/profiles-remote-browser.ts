import { call } from '../api.js';
import { field, h, put, statusRegion } from '../dom.js';
import { errorBox } from '../errors.js';
import type { PageContext } from '../router.js';
import { heading } from '../ui.js';

/**
 * The remote browser (docs/profiles-remote-browser.md): a tab of the service's own Chromium, drawn on a canvas from
 * the stream's JPEG frames; the canvas takes the mouse, the wheel, the keyboard and pastes and sends them back. An
 * address bar navigates, goes back and reloads. Save keeps what the browser holds as a profile (a new one, named
 * here, or the next version of the one refreshed); Cancel closes it. Leaving the page closes it too.
 */
interface Opened {
  id: string;
  profileId: string | null;
  viewport: { width: number; height: number };
  expiresAt: string;
  idleTimeoutMs: number;
  streamUrl: string;
}
type ServiceMessage =
  | { t: 'viewport'; width: number; height: number }
  | { t: 'location'; url: string; title: string; canGoBack: boolean }
  | { t: 'refused'; reason: string }
  | { t: 'ended'; reason: string };

const SESSIONS = '/v1/profiles/browser-sessions';
const BUTTONS = ['left', 'middle', 'right'] as const;
const modifiersOf = (e: MouseEvent | KeyboardEvent) =>
  (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);

export async function remoteBrowserPage(ctx: PageContext): Promise<void> {
  const profileId = ctx.query.get('profile') ?? undefined;
  const profileName = ctx.query.get('name') ?? '';
  const address = h('input', {
    id: 'rb-address',
    type: 'text',
    inputmode: 'url',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'https://example.org/login',
  });
  const back = h('button', { type: 'button', disabled: true }, 'Back');
  const reload = h('button', { type: 'button', disabled: true }, 'Reload');
  const go = h('button', { type: 'submit', disabled: true }, 'Go');
  const bar = h(
    'form',
    { class: 'rb-bar', 'aria-label': 'Address bar' },
    back,
    reload,
    h('label', { for: 'rb-address', class: 'rb-address-label' }, 'Address'),
    address,
    go,
  );
  const canvas = h('canvas', {
    id: 'rb-screen',
    class: 'rb-screen',
    tabindex: '0',
    role: 'application',
    'aria-roledescription': 'remote browser',
    'aria-label': 'Remote browser page. Click or focus it to use the mouse and keyboard in it; Shift+Escape leaves it.',
    'aria-describedby': 'rb-help',
    'data-frames': '0',
    width: '1280',
    height: '800',
  });
  const help = h(
    'p',
    { id: 'rb-help', class: 'hint' },
    'Keys, clicks, scrolling and pastes go to the page. Tab moves within the page; Shift+Escape moves on to Save.',
  );
  const status = statusRegion();
  const name = h('input', { id: 'rb-name', name: 'name', type: 'text', maxlength: '100', value: profileName });
  const save = h('button', { type: 'submit', class: 'primary', disabled: true }, 'Save profile');
  const cancel = h('button', { type: 'button', disabled: true }, 'Cancel');
  const saveForm = h(
    'form',
    { class: 'stack rb-save' },
    profileId ? null : field('Profile name', name, 'Required: how captures and schedules will name it.'),
    h('div', { class: 'actions' }, save, cancel),
  );
  put(
    ctx.main,
    heading(profileId ? `Refresh profile ${profileName}`.trim() : 'New profile'),
    h(
      'p',
      null,
      'Sign in to the sites this profile is for, then save. The browser is the service’s: it reaches only public sites, downloads nothing and closes when left idle.',
    ),
    bar,
    h('div', { class: 'rb-frame' }, canvas),
    help,
    status,
    saveForm,
  );

  let opened: Opened;
  const started = performance.now();
  put(status, 'Starting the remote browser…');
  try {
    opened = (await call<Opened>('POST', SESSIONS, profileId ? { profileId } : {}, ctx.signal)).body;
  } catch (err) {
    if ((err as Error).name !== 'AbortError') put(status, errorBox(err));
    return;
  }
  const sessionPath = `${SESSIONS}/${encodeURIComponent(opened.id)}`;
  let viewport = opened.viewport;
  let over = false;
  const socket = new WebSocket(
    `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${opened.streamUrl}`,
  );
  socket.binaryType = 'blob';
  const draw = canvas.getContext('2d')!;
  const controls = [back, reload, go, save, cancel];

  const finish = (message: string | Node) => {
    over = true;
    for (const c of controls) c.setAttribute('disabled', '');
    put(status, message);
    if (socket.readyState <= WebSocket.OPEN) socket.close();
  };
  ctx.signal.addEventListener('abort', () => {
    if (over) return;
    over = true;
    socket.close();
    void call('DELETE', sessionPath).catch(() => {});
  });

  // Frames are drawn newest first: one decoding at a time, the one waiting replaced by any newer one.
  let frames = 0;
  let decoding = false;
  let waiting: Blob | null = null;
  const drawNext = async () => {
    if (decoding || !waiting) return;
    decoding = true;
    const blob = waiting;
    waiting = null;
    try {
      const bitmap = await createImageBitmap(blob);
      draw.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      bitmap.close();
      frames++;
      canvas.dataset.frames = String(frames);
      if (frames === 1) canvas.dataset.firstFrameMs = String(Math.round(performance.now() - started));
    } catch {
      // a frame that does not decode is skipped
    } finally {
      decoding = false;
      void drawNext();
    }
  };

  socket.addEventListener('message', (e) => {
    if (e.data instanceof Blob) {
      waiting = e.data;
      void drawNext();
      return;
    }
    let m: ServiceMessage;
    try {
      m = JSON.parse(String(e.data)) as ServiceMessage;
    } catch {
      return;
    }
    if (m.t === 'viewport') {
      viewport = { width: m.width, height: m.height };
      canvas.width = m.width;
      canvas.height = m.height;
    } else if (m.t === 'location') {
      if (document.activeElement !== address) address.value = m.url === 'about:blank' ? '' : m.url;
      canvas.dataset.url = m.url;
      back.toggleAttribute('disabled', !m.canGoBack || over);
      put(status, m.title ? `Showing “${m.title}”.` : '');
    } else if (m.t === 'refused') {
      put(status, h('div', { class: 'error', role: 'alert' }, m.reason));
    } else if (m.t === 'ended') {
      finish(m.reason);
    }
  });
  socket.addEventListener('open', () => {
    for (const c of [reload, go, save, cancel]) c.removeAttribute('disabled');
    put(status, 'The remote browser is ready: type an address, then sign in on the page.');
  });
  socket.addEventListener('close', () => {
    if (!over) finish('The connection to the remote browser was lost; it closes by itself when left idle.');
  });

  const send = (message: object) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };

  // The address bar.
  bar.addEventListener('submit', (e) => {
    e.preventDefault();
    send({ t: 'navigate', url: address.value });
    canvas.focus();
  });
  back.addEventListener('click', () => send({ t: 'back' }));
  reload.addEventListener('click', () => send({ t: 'reload' }));

  // The mouse: positions in the page's CSS pixels, whatever size the canvas is shown at.
  const at = (e: MouseEvent) => {
    const r = canvas.getBoundingClientRect();
    return {
      x: Math.round(((e.clientX - r.left) / r.width) * viewport.width),
      y: Math.round(((e.clientY - r.top) / r.height) * viewport.height),
    };
  };
  const mouse = (kind: 'down' | 'up') => (e: MouseEvent) => {
    e.preventDefault();
    if (kind === 'down') canvas.focus();
    send({
      t: 'mouse',
      kind,
      ...at(e),
      button: BUTTONS[e.button] ?? 'left',
      clickCount: e.detail || 1,
      modifiers: modifiersOf(e),
    });
  };
  canvas.addEventListener('mousedown', mouse('down'));
  canvas.addEventListener('mouseup', mouse('up'));
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  let moved: MouseEvent | null = null;
  canvas.addEventListener('mousemove', (e) => {
    // At most one move per animation frame.
    if (!moved)
      requestAnimationFrame(() => {
        const m = moved!;
        moved = null;
        const pressed = m.buttons & 1 ? 'left' : m.buttons & 4 ? 'middle' : m.buttons & 2 ? 'right' : 'none';
        send({ t: 'mouse', kind: 'move', ...at(m), button: pressed, clickCount: 0, modifiers: modifiersOf(m) });
      });
    moved = e;
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    const scale = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? viewport.height : 1;
    send({ t: 'wheel', ...at(e), deltaX: e.deltaX * scale, deltaY: e.deltaY * scale, modifiers: modifiersOf(e) });
  });

  // The keyboard: every key goes to the page but Shift+Escape (out of the page) and the paste shortcut (a paste).
  const key = (kind: 'down' | 'up') => (e: KeyboardEvent) => {
    if (e.key === 'Escape' && e.shiftKey) {
      if (kind === 'down') (profileId ? save : name).focus();
      return;
    }
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'v') return; // the paste event follows
    e.preventDefault();
    const typed = e.key === 'Enter' ? '\r' : e.key.length === 1 && !e.ctrlKey && !e.metaKey ? e.key : undefined;
    send({
      t: 'key',
      kind,
      key: e.key,
      code: e.code,
      keyCode: e.keyCode,
      ...(typed && kind === 'down' ? { text: typed } : {}),
      modifiers: modifiersOf(e),
    });
  };
  canvas.addEventListener('keydown', key('down'));
  canvas.addEventListener('keyup', key('up'));
  canvas.addEventListener('paste', (e) => {
    const text = e.clipboardData?.getData('text/plain');
    e.preventDefault();
    if (text) send({ t: 'text', text: text.slice(0, 10_000) });
  });

  saveForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!profileId && !name.value.trim()) {
      put(status, h('div', { class: 'error', role: 'alert' }, 'Give the profile a name first.'));
      name.focus();
      return;
    }
    save.setAttribute('disabled', '');
    put(status, 'Saving…');
    try {
      const { body } = await call<{ id: string; name: string; version: number; sites: string[] }>(
        'POST',
        `${sessionPath}/save`,
        profileId ? {} : { name: name.value.trim() },
      );
      finish(
        h(
          'span',
          null,
          `Saved “${body.name}”, version ${body.version}${body.sites.length ? `, for ${body.sites.join(', ')}` : ''}. `,
          h('a', { href: '/console/profiles' }, 'Back to the profiles'),
        ),
      );
    } catch (err) {
      save.removeAttribute('disabled');
      put(status, errorBox(err));
    }
  });
  cancel.addEventListener('click', async () => {
    try {
      await call('DELETE', sessionPath);
      finish('Closed without saving.');
      ctx.navigate('/console/profiles');
    } catch (err) {
      put(status, errorBox(err));
    }
  });
}
