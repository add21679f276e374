import type { Browser, BrowserContext, CDPSession, Dialog, Page, Target } from 'puppeteer-core';
import type { BrowserState, OriginStorage } from '../browser-state.js';
import { browsableUrl, mayShow } from './address-bar.js';
import { browserStateOf, httpOrigin, MAX_ORIGINS } from './browser-state-of.js';
import { inputCommand, type ServiceMessage, type ViewerMessage, type Viewport } from './viewer-messages.js';

/**
 * One remote browser: a fresh browser context with one tab, behind the egress proxy, that a person drives from the
 * console. Its tab is streamed with Page.startScreencast (JPEG frames, each acknowledged only once the viewer's socket
 * has taken it, so a slow viewer slows the stream instead of queueing frames); input comes back through the Input
 * domain. It keeps one tab (a popup's address is opened in it instead), downloads nothing, opens no file chooser and
 * shows only http(s) pages.
 */

/** Where frames and messages go: the stream's socket while a viewer is attached. */
export interface Viewer {
  /** One JPEG frame; `taken` is called once it is handed to the socket (then the next frame may come). */
  frame(jpeg: Buffer, taken: () => void): void;
  send(message: ServiceMessage): void;
}

export interface BrowserSession {
  readonly viewport: Viewport;
  /** The viewer from now on (a second attach replaces the first): it gets the viewport, the location and frames. */
  attach(viewer: Viewer): Promise<void>;
  detach(viewer: Viewer): Promise<void>;
  /** Input and the address bar; input beyond what the page keeps up with is dropped (mouse moves first). */
  handle(message: ViewerMessage): void;
  /** The cookies and localStorage the browser holds now. */
  state(): Promise<BrowserState>;
  /** Told once when the browser or its tab goes away without close(). */
  onGone(listener: () => void): void;
  close(): Promise<void>;
}

export interface BrowserSessionOptions {
  browser: Browser;
  /** The egress proxy every request of the tab goes through (DESIGN decision 6). */
  proxyServer: string;
  viewport: Viewport;
  /** A profile's contents to start from (Refresh), or null for a signed-out browser. */
  initial: BrowserState | null;
  /** The page to open first; the blank page otherwise. */
  startUrl?: string;
  log?: SessionLog;
}

export interface SessionLog {
  warn(obj: object, msg: string): void;
}

const JPEG_QUALITY = 70;
/** Input calls waiting for the page beyond which mouse moves are dropped, and beyond twice this, everything. */
const MAX_PENDING_INPUT = 50;
/** How long a popup may take to name its address before it is closed anyway. */
const POPUP_WAIT_MS = 3000;
/** A tab in the middle of a cross-site navigation refuses Page.startScreencast for a moment. */
const SCREENCAST_ATTEMPTS = 10;
const RESTORED_MARK = '__captureLedgerProfileRestored';
/** How often the open origin's localStorage is read while the person browses (it is also read before leaving it). */
const STORAGE_SNAPSHOT_MS = 5000;

export async function openBrowserSession(o: BrowserSessionOptions): Promise<BrowserSession> {
  const context = await o.browser.createBrowserContext({
    downloadBehavior: { policy: 'deny' },
    proxyServer: o.proxyServer,
    proxyBypassList: ['<-loopback>'], // loopback too goes through the proxy, which decides
  });
  try {
    const page = await context.newPage();
    const cdp = await page.createCDPSession();
    await Promise.all([
      page.setViewport({ ...o.viewport, deviceScaleFactor: 1 }),
      cdp.send('Page.enable'),
      // The page's file inputs open no chooser: nothing of the host's disk can be uploaded.
      cdp.send('Page.setInterceptFileChooserDialog', { enabled: true }),
    ]);
    if (o.initial) await restore(context, cdp, o.initial);
    const session = driveSession(context, page, cdp, o.viewport, o.log);
    if (o.startUrl) session.handle({ t: 'navigate', url: o.startUrl });
    return session;
  } catch (error) {
    await context.close().catch(() => {});
    throw error;
  }
}

async function restore(context: BrowserContext, cdp: CDPSession, state: BrowserState): Promise<void> {
  if (state.cookies.length > 0)
    await context.setCookie(
      ...state.cookies.map((c) => ({
        name: c.name,
        value: c.value,
        domain: c.domain,
        path: c.path,
        httpOnly: c.httpOnly,
        secure: c.secure,
        sameSite: c.sameSite,
        ...(c.expires >= 0 ? { expires: c.expires } : {}),
      })),
    );
  // localStorage can only be written where a document of its origin is open: each origin's items are written by a
  // script in an isolated world (the page cannot read it, nor another origin's items in it) when its first document
  // of this tab opens, before the page's own scripts run. sessionStorage marks an origin done for the tab.
  const seed = Object.fromEntries(
    state.origins.map((o) => [o.origin, o.localStorage.map(({ name, value }) => [name, value])]),
  );
  if (Object.keys(seed).length === 0) return;
  await cdp.send('Page.addScriptToEvaluateOnNewDocument', {
    worldName: 'profile-restore',
    source: `(() => {
      const items = (${JSON.stringify(seed)})[location.origin];
      if (!items || sessionStorage.getItem('${RESTORED_MARK}')) return;
      for (const [name, value] of items) localStorage.setItem(name, value);
      sessionStorage.setItem('${RESTORED_MARK}', '1');
    })();`,
  });
}

/** One remote browser as it is driven: its tab, its viewer, its input queue and what it has seen. */
interface Drive {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  viewport: Viewport;
  log: SessionLog | undefined;
  viewer: Viewer | null;
  closed: boolean;
  /** Input calls waiting for the page, and the chain they wait on. */
  pending: number;
  chain: Promise<unknown>;
  /** The http(s) origins the tab has shown, whose localStorage Save keeps. */
  origins: string[];
  /**
   * localStorage is readable only while a document of its origin is open, so the open origin's is read as the person
   * goes (on load, before input that may leave it, and every few seconds); Save reads it live where it can.
   */
  lastStorage: Map<string, OriginStorage['localStorage']>;
  snapshots: ReturnType<typeof setInterval> | undefined;
  goneListeners: Array<() => void>;
  /** Popups waiting to name their address. */
  popups: Set<Target>;
}

const sendToViewer = (d: Drive, m: ServiceMessage) => d.viewer?.send(m);

const cdpCall = (d: Drive, method: string, params: object = {}) =>
  (d.cdp.send as (m: string, p: object) => Promise<unknown>)(method, params);

/** Input in order, one call at a time; what the page cannot keep up with is dropped. */
function enqueue(d: Drive, method: string, params: object, droppable: boolean): void {
  if (d.pending >= (droppable ? MAX_PENDING_INPUT : MAX_PENDING_INPUT * 2)) return;
  d.pending++;
  d.chain = d.chain
    .then(() => cdpCall(d, method, params))
    .catch(() => {})
    .finally(() => d.pending--);
}

async function readStorage(d: Drive, origin: string): Promise<OriginStorage['localStorage'] | null> {
  const answer = (await cdpCall(d, 'DOMStorage.getDOMStorageItems', {
    storageId: { securityOrigin: origin, isLocalStorage: true },
  }).catch(() => null)) as { entries: string[][] } | null;
  if (!answer) return null;
  const items = answer.entries.map(([name = '', value = '']) => ({ name, value }));
  d.lastStorage.set(origin, items);
  return items;
}

function snapshot(d: Drive): void {
  const origin = httpOrigin(d.page.url());
  if (origin) void readStorage(d, origin);
}

async function sendLocation(d: Drive): Promise<void> {
  if (!d.viewer) return;
  const history = (await cdpCall(d, 'Page.getNavigationHistory').catch(() => null)) as {
    currentIndex: number;
    entries: Array<{ id: number; url: string; title: string }>;
  } | null;
  const entry = history?.entries[history.currentIndex];
  sendToViewer(d, {
    t: 'location',
    url: entry?.url ?? d.page.url(),
    title: entry?.title ?? '',
    canGoBack: (history?.currentIndex ?? 0) > 0,
  });
}

function navigate(d: Drive, typed: string): void {
  const verdict = browsableUrl(typed);
  if (!verdict.ok) return void sendToViewer(d, { t: 'refused', reason: verdict.reason });
  enqueue(d, 'Page.navigate', { url: verdict.url }, false);
}

function goBack(d: Drive): void {
  d.chain = d.chain
    .then(async () => {
      const h = (await cdpCall(d, 'Page.getNavigationHistory')) as {
        currentIndex: number;
        entries: { id: number }[];
      };
      const previous = h.entries[h.currentIndex - 1];
      if (previous) await cdpCall(d, 'Page.navigateToHistoryEntry', { entryId: previous.id });
    })
    .catch(() => {});
}

/**
 * Chromium sends the next frame only once the last ones are acknowledged: an acknowledgement that fails would leave
 * the viewer on a frozen picture for good, so the screencast is started again (which sends the current picture).
 */
function acknowledge(d: Drive, sessionId: number): void {
  cdpCall(d, 'Page.screencastFrameAck', { sessionId }).catch((error: unknown) => {
    if (d.closed || !d.viewer) return;
    d.log?.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'a screencast frame was not acknowledged; restarting the screencast',
    );
    startScreencast(d).catch(() => {});
  });
}

function onScreencastFrame(d: Drive, f: { data: string; sessionId: number }): void {
  const taken = () => acknowledge(d, f.sessionId);
  if (!d.viewer) return taken();
  d.viewer.frame(Buffer.from(f.data, 'base64'), taken);
}

function onFrameNavigated(d: Drive, frame: { url: string; parentId?: string }): void {
  const origin = httpOrigin(frame.url);
  if (origin && !d.origins.includes(origin) && d.origins.length < MAX_ORIGINS) d.origins.push(origin);
  if (frame.parentId) return;
  // The address bar lets nothing else through; this catches a page that got there some other way.
  if (!mayShow(frame.url)) {
    sendToViewer(d, {
      t: 'refused',
      reason: `Only http and https pages open here; ${new URL(frame.url).protocol} was left.`,
    });
    enqueue(d, 'Page.navigate', { url: 'about:blank' }, false);
  }
  void sendLocation(d);
}

function onLoad(d: Drive): void {
  snapshot(d);
  void sendLocation(d);
}

/** Nobody can answer a dialog in the stream: alerts and leave-page prompts are accepted, questions declined. */
function onDialog(dialog: Dialog): void {
  const accept = dialog.type() === 'alert' || dialog.type() === 'beforeunload';
  void (accept ? dialog.accept() : dialog.dismiss()).catch(() => {});
}

// One tab: a popup or a link opening a new tab is closed, and its address opened in the tab instead.
async function takeOver(d: Drive, target: Target): Promise<void> {
  if (!d.popups.delete(target)) return;
  const url = target.url();
  await (await target.page().catch(() => null))?.close().catch(() => {});
  if (httpOrigin(url)) navigate(d, url);
}

function onTargetCreated(d: Drive, target: Target): void {
  if (target === d.page.target() || target.type() !== 'page') return;
  d.popups.add(target);
  if (httpOrigin(target.url())) void takeOver(d, target);
  else setTimeout(() => void takeOver(d, target), POPUP_WAIT_MS).unref();
}

function onTargetChanged(d: Drive, target: Target): void {
  if (d.popups.has(target) && httpOrigin(target.url())) void takeOver(d, target);
}

function onGone(d: Drive): void {
  clearInterval(d.snapshots);
  if (d.closed) return;
  d.closed = true;
  for (const listener of d.goneListeners.splice(0)) listener();
}

/** (Re)starts the screencast, which sends the current picture first; refused while the tab swaps renderers. */
async function startScreencast(d: Drive): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await cdpCall(d, 'Page.stopScreencast').catch(() => {});
      await cdpCall(d, 'Page.startScreencast', {
        format: 'jpeg',
        quality: JPEG_QUALITY,
        maxWidth: d.viewport.width,
        maxHeight: d.viewport.height,
        everyNthFrame: 1,
      });
      return;
    } catch (error) {
      if (d.closed || attempt >= SCREENCAST_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

function handle(d: Drive, m: ViewerMessage): void {
  if (d.closed) return;
  if (m.t === 'navigate' || m.t === 'back' || m.t === 'reload' || (m.t === 'mouse' && m.kind === 'down')) snapshot(d);
  switch (m.t) {
    case 'navigate':
      return navigate(d, m.url);
    case 'reload':
      return enqueue(d, 'Page.reload', {}, false);
    case 'back':
      return goBack(d);
    default: {
      const { method, params } = inputCommand(m);
      return enqueue(d, method, params, m.t === 'mouse' && m.kind === 'move');
    }
  }
}

async function stateOf(d: Drive): Promise<BrowserState> {
  const cookies = await d.context.cookies();
  const storage: OriginStorage[] = [];
  for (const origin of d.origins)
    storage.push({ origin, localStorage: (await readStorage(d, origin)) ?? d.lastStorage.get(origin) ?? [] });
  return browserStateOf(cookies, storage);
}

function listen(d: Drive): void {
  const { cdp, page, context } = d;
  cdp.on('Page.screencastFrame', (f) => onScreencastFrame(d, f));
  cdp.on('Page.frameNavigated', ({ frame }) => onFrameNavigated(d, frame));
  cdp.on('Page.navigatedWithinDocument', () => void sendLocation(d));
  cdp.on('Page.loadEventFired', () => onLoad(d));
  page.on('dialog', onDialog);
  context.on('targetcreated', (target) => onTargetCreated(d, target));
  context.on('targetchanged', (target) => onTargetChanged(d, target));
  const gone = () => onGone(d);
  page.on('close', gone);
  page.on('error', gone); // the tab crashed
  cdp.on('Inspector.targetCrashed', gone);
}

function driveSession(
  context: BrowserContext,
  page: Page,
  cdp: CDPSession,
  viewport: Viewport,
  log: SessionLog | undefined,
): BrowserSession {
  const d: Drive = {
    context,
    page,
    cdp,
    viewport,
    log,
    viewer: null,
    closed: false,
    pending: 0,
    chain: Promise.resolve(),
    origins: [],
    lastStorage: new Map(),
    snapshots: undefined,
    goneListeners: [],
    popups: new Set(),
  };
  d.snapshots = setInterval(() => snapshot(d), STORAGE_SNAPSHOT_MS);
  d.snapshots.unref();
  listen(d);
  return {
    viewport,
    async attach(next) {
      d.viewer = next;
      next.send({ t: 'viewport', ...viewport });
      await sendLocation(d);
      await startScreencast(d);
    },
    async detach(leaving) {
      if (d.viewer !== leaving) return;
      d.viewer = null;
      await cdpCall(d, 'Page.stopScreencast').catch(() => {});
    },
    handle: (m) => handle(d, m),
    state: () => stateOf(d),
    onGone(listener) {
      d.goneListeners.push(listener);
    },
    async close() {
      clearInterval(d.snapshots);
      d.closed = true;
      d.viewer = null;
      await context.close().catch(() => {});
    },
  };
}
