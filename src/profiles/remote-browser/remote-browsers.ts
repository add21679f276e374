import { randomBytes } from 'node:crypto';
import type { BrowserState, ProfileStates, ProfileSummary } from '../browser-state.js';
import { type BrowserSession, openBrowserSession, type Viewer } from './browser-session.js';
import type { ViewerMessage, Viewport } from './viewer-messages.js';
import type { SharedBrowser } from './shared-browser.js';

/**
 * The remote browsers of this API process: who opened each, its limits, and what Save and Cancel do. A session is
 * found only by its id (192 random bits) together with the tenant and the holder that opened it — the console
 * session, or the API key — so another tenant, or another person of the same tenant, cannot reach it: to them it
 * does not exist. A session ends after `idleMs` without input and after `maxMs` in all; what it held is then gone.
 */

export interface RemoteBrowserLimits {
  idleMs: number;
  maxMs: number;
  perTenant: number;
  total: number;
}

/** Who asks: the tenant, the console session or key that holds the session, and the actor a saved version names. */
export interface SessionOwner {
  tenantId: string;
  holder: string;
  actor: string;
}

export type RemoteBrowserErrorCode = 'not_found' | 'unknown_profile' | 'tenant_limit' | 'busy' | 'invalid';

/** A refusal, recognised by its code (the routes give each its HTTP answer). */
export class RemoteBrowserError extends Error {
  override name = 'RemoteBrowserError';
  constructor(
    readonly code: RemoteBrowserErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface OpenedSession {
  id: string;
  /** The profile whose contents it started from (Refresh), or null. */
  profileId: string | null;
  viewport: Viewport;
  /** When the hard limit ends it. */
  expiresAt: Date;
  idleMs: number;
}

export interface RemoteBrowsers {
  open(owner: SessionOwner, request: { profileId?: string; startUrl?: string }): Promise<OpenedSession>;
  /** Whether the owner may reach this session (the stream checks it before the socket is upgraded). */
  has(owner: SessionOwner, id: string): boolean;
  /** The session as it was opened (not_found for anyone but its owner). */
  describe(owner: SessionOwner, id: string): OpenedSession;
  /** Attaches a viewer; returns what to call with its messages and when it leaves. */
  connect(owner: SessionOwner, id: string, viewer: Viewer & { end(reason: string): void }): Promise<Connection>;
  /** Saves what the browser holds as a new profile (`name`) or the next version of the one refreshed; then ends it. */
  save(owner: SessionOwner, id: string, request: { name?: string }): Promise<ProfileSummary>;
  /** Ends it without saving. */
  end(owner: SessionOwner, id: string): Promise<void>;
  /** Sessions open now (tests, metrics). */
  count(): number;
  stop(): Promise<void>;
}

export interface Connection {
  message(m: ViewerMessage): void;
  leave(): void;
}

export interface RemoteBrowsersOptions {
  browser: SharedBrowser;
  states: ProfileStates;
  limits: RemoteBrowserLimits;
  viewport: Viewport;
  now?: () => number;
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

interface Entry {
  id: string;
  owner: SessionOwner;
  profileId: string | null;
  session: BrowserSession;
  openedAt: number;
  lastInput: number;
  viewer: (Viewer & { end(reason: string): void }) | null;
  /** Set while Save collects the state: input stops counting, a second Save or Cancel waits for none. */
  ending: boolean;
}

const newSessionId = () => `rbs_${randomBytes(24).toString('base64url')}`;
export const SESSION_ID_PATTERN = /^rbs_[A-Za-z0-9_-]{32}$/;

/** The remote browsers of this process, as the functions below share them. */
interface Pool {
  o: RemoteBrowsersOptions;
  now: () => number;
  sessions: Map<string, Entry>;
  /** Opens under way, counted against the limits like open sessions. */
  opening: Map<string, number>;
  stopped: boolean;
  sweeper: ReturnType<typeof setInterval> | undefined;
}

const ofTenant = (p: Pool, tenantId: string) =>
  [...p.sessions.values()].filter((e) => e.owner.tenantId === tenantId).length + (p.opening.get(tenantId) ?? 0);
const totalOpen = (p: Pool) => p.sessions.size + [...p.opening.values()].reduce((a, b) => a + b, 0);

const openedOf = (p: Pool, entry: Entry): OpenedSession => ({
  id: entry.id,
  profileId: entry.profileId,
  viewport: entry.session.viewport,
  expiresAt: new Date(entry.openedAt + p.o.limits.maxMs),
  idleMs: p.o.limits.idleMs,
});

function entryOf(p: Pool, owner: SessionOwner, id: string): Entry {
  const entry = p.sessions.get(id);
  if (!entry || entry.owner.tenantId !== owner.tenantId || entry.owner.holder !== owner.holder)
    throw new RemoteBrowserError('not_found', 'No such remote browser for this session; it may have ended.');
  return entry;
}

async function finish(p: Pool, entry: Entry, reason: string): Promise<void> {
  if (!p.sessions.delete(entry.id)) return;
  entry.viewer?.end(reason);
  entry.viewer = null;
  await entry.session.close();
  p.o.log?.info({ sessionId: entry.id.slice(0, 8), tenantId: entry.owner.tenantId, reason }, 'remote browser ended');
  if (p.sessions.size === 0) p.o.browser.idle();
}

/** Ends the sessions past their hard limit or idle too long. */
function sweep(p: Pool): void {
  const t = p.now();
  const { limits } = p.o;
  for (const entry of p.sessions.values()) {
    if (entry.ending) continue;
    if (t - entry.openedAt >= limits.maxMs)
      void finish(p, entry, `The remote browser reached its limit of ${minutes(limits.maxMs)} and was closed.`);
    else if (t - entry.lastInput >= limits.idleMs)
      void finish(p, entry, `The remote browser was idle for ${minutes(limits.idleMs)} and was closed.`);
  }
}

function checkRoomFor(p: Pool, owner: SessionOwner): void {
  const { limits } = p.o;
  if (p.stopped) throw new RemoteBrowserError('busy', 'The service is stopping; try again in a moment.');
  if (ofTenant(p, owner.tenantId) >= limits.perTenant)
    throw new RemoteBrowserError(
      'tenant_limit',
      `This tenant already has ${limits.perTenant} remote browser${limits.perTenant === 1 ? '' : 's'} open; save or cancel one first.`,
    );
  if (totalOpen(p) >= limits.total)
    throw new RemoteBrowserError('busy', 'Every remote browser of the service is in use; try again in a few minutes.');
}

/** Starts the browser and keeps it as a session of the owner. */
async function startSession(
  p: Pool,
  owner: SessionOwner,
  request: { profileId?: string; startUrl?: string },
): Promise<OpenedSession> {
  let initial: BrowserState | null = null;
  if (request.profileId !== undefined) {
    initial = await p.o.states.load(owner.tenantId, request.profileId);
    if (!initial) throw new RemoteBrowserError('unknown_profile', 'profileId: no such profile for this tenant.');
  }
  const browser = await p.o.browser.acquire();
  const session = await openBrowserSession({
    browser: browser.browser,
    proxyServer: browser.proxyServer,
    viewport: p.o.viewport,
    initial,
    ...(request.startUrl ? { startUrl: request.startUrl } : {}),
    ...(p.o.log ? { log: p.o.log } : {}),
  });
  const t = p.now();
  const entry: Entry = {
    id: newSessionId(),
    owner,
    profileId: request.profileId ?? null,
    session,
    openedAt: t,
    lastInput: t,
    viewer: null,
    ending: false,
  };
  p.sessions.set(entry.id, entry);
  session.onGone(() => void finish(p, entry, 'The remote browser stopped; open a new one.'));
  if (p.stopped) await finish(p, entry, 'The service is stopping.');
  return openedOf(p, entry);
}

async function openSession(
  p: Pool,
  owner: SessionOwner,
  request: { profileId?: string; startUrl?: string },
): Promise<OpenedSession> {
  checkRoomFor(p, owner);
  p.opening.set(owner.tenantId, (p.opening.get(owner.tenantId) ?? 0) + 1);
  try {
    return await startSession(p, owner, request);
  } finally {
    const left = (p.opening.get(owner.tenantId) ?? 1) - 1;
    if (left > 0) p.opening.set(owner.tenantId, left);
    else p.opening.delete(owner.tenantId);
    if (p.sessions.size === 0 && totalOpen(p) === 0) p.o.browser.idle();
  }
}

async function connectViewer(
  p: Pool,
  owner: SessionOwner,
  id: string,
  viewer: Viewer & { end(reason: string): void },
): Promise<Connection> {
  const entry = entryOf(p, owner, id);
  // One viewer at a time: a second view of the same session (another console tab) takes over.
  entry.viewer?.end('The remote browser was opened in another window.');
  entry.viewer = viewer;
  entry.lastInput = p.now();
  await entry.session.attach(viewer);
  return {
    message(m) {
      if (entry.viewer !== viewer || entry.ending) return;
      entry.lastInput = p.now();
      entry.session.handle(m);
    },
    leave() {
      if (entry.viewer !== viewer) return;
      entry.viewer = null;
      void entry.session.detach(viewer);
    },
  };
}

async function saveSession(
  p: Pool,
  owner: SessionOwner,
  id: string,
  request: { name?: string },
): Promise<ProfileSummary> {
  const entry = entryOf(p, owner, id);
  if (entry.ending) throw new RemoteBrowserError('not_found', 'This remote browser is already being saved.');
  if (!entry.profileId && !request.name) throw new RemoteBrowserError('invalid', 'name: a new profile needs a name.');
  entry.ending = true;
  try {
    const state = await entry.session.state();
    const saved = await p.o.states.save({
      tenantId: owner.tenantId,
      actor: owner.actor,
      ...(entry.profileId ? { profileId: entry.profileId } : {}),
      ...(request.name ? { name: request.name } : {}),
      state,
    });
    await finish(p, entry, `Saved as version ${saved.version} of "${saved.name}".`);
    return saved;
  } catch (error) {
    entry.ending = false; // not saved: the person may try again or cancel
    throw error;
  }
}

async function stopAll(p: Pool): Promise<void> {
  p.stopped = true;
  clearInterval(p.sweeper);
  await Promise.all([...p.sessions.values()].map((e) => finish(p, e, 'The service is stopping.')));
  await p.o.browser.close();
}

export function createRemoteBrowsers(o: RemoteBrowsersOptions): RemoteBrowsers {
  const p: Pool = {
    o,
    now: o.now ?? Date.now,
    sessions: new Map(),
    opening: new Map(),
    stopped: false,
    sweeper: undefined,
  };
  // One sweep for every session's limits: a second's precision is enough for limits of minutes.
  const sweepMs = Math.max(250, Math.min(5000, Math.floor(Math.min(o.limits.idleMs, o.limits.maxMs) / 5)));
  p.sweeper = setInterval(() => sweep(p), sweepMs);
  p.sweeper.unref();

  return {
    open: (owner, request) => openSession(p, owner, request),
    has(owner, id) {
      try {
        entryOf(p, owner, id);
        return true;
      } catch {
        return false;
      }
    },
    describe: (owner, id) => openedOf(p, entryOf(p, owner, id)),
    connect: (owner, id, viewer) => connectViewer(p, owner, id, viewer),
    save: (owner, id, request) => saveSession(p, owner, id, request),
    async end(owner, id) {
      await finish(p, entryOf(p, owner, id), 'Closed without saving.');
    },
    count: () => p.sessions.size,
    stop: () => stopAll(p),
  };
}

const minutes = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`);
