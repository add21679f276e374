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

interface Elements {
  address: HTMLInputElement;
  back: HTMLButtonElement;
  reload: HTMLButtonElement;
  go: HTMLButtonElement;
  bar: HTMLFormElement;
  canvas: HTMLCanvasElement;
  status: HTMLElement;
  name: HTMLInputElement;
  save: HTMLButtonElement;
  cancel: HTMLButtonElement;
  saveForm: HTMLFormElement;
}

/** One open remote browser as the page holds it. */
interface Remote {
  ctx: PageContext;
  ui: Elements;
  profileId: string | undefined;
  sessionPath: string;
  viewport: { width: number; height: number };
  over: boolean;
  socket: WebSocket;
  draw: CanvasRenderingContext2D;
  started: number;
  // Frames are drawn newest first: one decoding at a time, the one waiting replaced by any newer one.
  frames: number;
  decoding: boolean;
  waiting: Blob | null;
  moved: MouseEvent | null;
}

function addressBar(): Pick<Elements, 'address' | 'back' | 'reload' | 'go' | 'bar'> {
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
  return { address, back, reload, go, bar };
}

function screen(): HTMLCanvasElement {
  return h('canvas', {
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
}

function renderPage(ctx: PageContext, profileId: string | undefined, profileName: string): Elements {
  const bar = addressBar();
  const canvas = screen();
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
    bar.bar,
    h('div', { class: 'rb-frame' }, canvas),
    help,
    status,
    saveForm,
  );
  return { ...bar, canvas, status, name, save, cancel, saveForm };
}

function finish(r: Remote, message: string | Node): void {
  r.over = true;
  for (const c of [r.ui.back, r.ui.reload, r.ui.go, r.ui.save, r.ui.cancel]) c.setAttribute('disabled', '');
  put(r.ui.status, message);
  if (r.socket.readyState <= WebSocket.OPEN) r.socket.close();
}

function onLeave(r: Remote): void {
  if (r.over) return;
  r.over = true;
  r.socket.close();
  void call('DELETE', r.sessionPath).catch(() => {});
}

async function drawNext(r: Remote): Promise<void> {
  if (r.decoding || !r.waiting) return;
  r.decoding = true;
  const blob = r.waiting;
  r.waiting = null;
  const { canvas } = r.ui;
  try {
    const bitmap = await createImageBitmap(blob);
    r.draw.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    r.frames++;
    canvas.dataset.frames = String(r.frames);
    if (r.frames === 1) canvas.dataset.firstFrameMs = String(Math.round(performance.now() - r.started));
  } catch {
    // a frame that does not decode is skipped
  } finally {
    r.decoding = false;
    void drawNext(r);
  }
}

function onServiceMessage(r: Remote, e: MessageEvent): void {
  if (e.data instanceof Blob) {
    r.waiting = e.data;
    void drawNext(r);
    return;
  }
  let m: ServiceMessage;
  try {
    m = JSON.parse(String(e.data)) as ServiceMessage;
  } catch {
    return;
  }
  const { canvas, address, back, status } = r.ui;
  if (m.t === 'viewport') {
    r.viewport = { width: m.width, height: m.height };
    canvas.width = m.width;
    canvas.height = m.height;
  } else if (m.t === 'location') {
    if (document.activeElement !== address) address.value = m.url === 'about:blank' ? '' : m.url;
    canvas.dataset.url = m.url;
    back.toggleAttribute('disabled', !m.canGoBack || r.over);
    put(status, m.title ? `Showing “${m.title}”.` : '');
  } else if (m.t === 'refused') {
    put(status, h('div', { class: 'error', role: 'alert' }, m.reason));
  } else if (m.t === 'ended') {
    finish(r, m.reason);
  }
}

function onOpen(r: Remote): void {
  for (const c of [r.ui.reload, r.ui.go, r.ui.save, r.ui.cancel]) c.removeAttribute('disabled');
  put(r.ui.status, 'The remote browser is ready: type an address, then sign in on the page.');
}

function onClose(r: Remote): void {
  if (!r.over) finish(r, 'The connection to the remote browser was lost; it closes by itself when left idle.');
}

function send(r: Remote, message: object): void {
  if (r.socket.readyState === WebSocket.OPEN) r.socket.send(JSON.stringify(message));
}

function onNavigate(r: Remote, e: SubmitEvent): void {
  e.preventDefault();
  send(r, { t: 'navigate', url: r.ui.address.value });
  r.ui.canvas.focus();
}

/** A mouse position in the page's CSS pixels, whatever size the canvas is shown at. */
function pointAt(r: Remote, e: MouseEvent): { x: number; y: number } {
  const box = r.ui.canvas.getBoundingClientRect();
  return {
    x: Math.round(((e.clientX - box.left) / box.width) * r.viewport.width),
    y: Math.round(((e.clientY - box.top) / box.height) * r.viewport.height),
  };
}

function onMouseButton(r: Remote, kind: 'down' | 'up', e: MouseEvent): void {
  e.preventDefault();
  if (kind === 'down') r.ui.canvas.focus();
  send(r, {
    t: 'mouse',
    kind,
    ...pointAt(r, e),
    button: BUTTONS[e.button] ?? 'left',
    clickCount: e.detail || 1,
    modifiers: modifiersOf(e),
  });
}

/** At most one move per animation frame. */
function onMouseMove(r: Remote, e: MouseEvent): void {
  if (!r.moved)
    requestAnimationFrame(() => {
      const m = r.moved!;
      r.moved = null;
      const pressed = m.buttons & 1 ? 'left' : m.buttons & 4 ? 'middle' : m.buttons & 2 ? 'right' : 'none';
      send(r, {
        t: 'mouse',
        kind: 'move',
        ...pointAt(r, m),
        button: pressed,
        clickCount: 0,
        modifiers: modifiersOf(m),
      });
    });
  r.moved = e;
}

function onWheel(r: Remote, e: WheelEvent): void {
  e.preventDefault();
  const scale = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? r.viewport.height : 1;
  send(r, {
    t: 'wheel',
    ...pointAt(r, e),
    deltaX: e.deltaX * scale,
    deltaY: e.deltaY * scale,
    modifiers: modifiersOf(e),
  });
}

/** Every key goes to the page but Shift+Escape (out of the page) and the paste shortcut (a paste). */
function onKey(r: Remote, kind: 'down' | 'up', e: KeyboardEvent): void {
  if (e.key === 'Escape' && e.shiftKey) {
    if (kind === 'down') (r.profileId ? r.ui.save : r.ui.name).focus();
    return;
  }
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'v') return; // the paste event follows
  e.preventDefault();
  const typed = e.key === 'Enter' ? '\r' : e.key.length === 1 && !e.ctrlKey && !e.metaKey ? e.key : undefined;
  send(r, {
    t: 'key',
    kind,
    key: e.key,
    code: e.code,
    keyCode: e.keyCode,
    ...(typed && kind === 'down' ? { text: typed } : {}),
    modifiers: modifiersOf(e),
  });
}

function onPaste(r: Remote, e: ClipboardEvent): void {
  const text = e.clipboardData?.getData('text/plain');
  e.preventDefault();
  if (text) send(r, { t: 'text', text: text.slice(0, 10_000) });
}

async function onSave(r: Remote, e: SubmitEvent): Promise<void> {
  e.preventDefault();
  const { name, save, status } = r.ui;
  if (!r.profileId && !name.value.trim()) {
    put(status, h('div', { class: 'error', role: 'alert' }, 'Give the profile a name first.'));
    name.focus();
    return;
  }
  save.setAttribute('disabled', '');
  put(status, 'Saving…');
  try {
    const { body } = await call<{ id: string; name: string; version: number; sites: string[] }>(
      'POST',
      `${r.sessionPath}/save`,
      r.profileId ? {} : { name: name.value.trim() },
    );
    finish(
      r,
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
}

async function onCancel(r: Remote): Promise<void> {
  try {
    await call('DELETE', r.sessionPath);
    finish(r, 'Closed without saving.');
    r.ctx.navigate('/console/profiles');
  } catch (err) {
    put(r.ui.status, errorBox(err));
  }
}

function listen(r: Remote): void {
  const { ui, socket } = r;
  r.ctx.signal.addEventListener('abort', () => onLeave(r));
  socket.addEventListener('message', (e) => onServiceMessage(r, e));
  socket.addEventListener('open', () => onOpen(r));
  socket.addEventListener('close', () => onClose(r));
  ui.bar.addEventListener('submit', (e) => onNavigate(r, e));
  ui.back.addEventListener('click', () => send(r, { t: 'back' }));
  ui.reload.addEventListener('click', () => send(r, { t: 'reload' }));
  ui.canvas.addEventListener('mousedown', (e) => onMouseButton(r, 'down', e));
  ui.canvas.addEventListener('mouseup', (e) => onMouseButton(r, 'up', e));
  ui.canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  ui.canvas.addEventListener('mousemove', (e) => onMouseMove(r, e));
  ui.canvas.addEventListener('wheel', (e) => onWheel(r, e));
  ui.canvas.addEventListener('keydown', (e) => onKey(r, 'down', e));
  ui.canvas.addEventListener('keyup', (e) => onKey(r, 'up', e));
  ui.canvas.addEventListener('paste', (e) => onPaste(r, e));
  ui.saveForm.addEventListener('submit', (e) => void onSave(r, e));
  ui.cancel.addEventListener('click', () => void onCancel(r));
}

export async function remoteBrowserPage(ctx: PageContext): Promise<void> {
  const profileId = ctx.query.get('profile') ?? undefined;
  const ui = renderPage(ctx, profileId, ctx.query.get('name') ?? '');
  let opened: Opened;
  const started = performance.now();
  put(ui.status, 'Starting the remote browser…');
  try {
    opened = (await call<Opened>('POST', SESSIONS, profileId ? { profileId } : {}, ctx.signal)).body;
  } catch (err) {
    if ((err as Error).name !== 'AbortError') put(ui.status, errorBox(err));
    return;
  }
  const socket = new WebSocket(
    `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${opened.streamUrl}`,
  );
  socket.binaryType = 'blob';
  listen({
    ctx,
    ui,
    profileId,
    sessionPath: `${SESSIONS}/${encodeURIComponent(opened.id)}`,
    viewport: opened.viewport,
    over: false,
    socket,
    draw: ui.canvas.getContext('2d')!,
    started,
    frames: 0,
    decoding: false,
    waiting: null,
    moved: null,
  });
}
