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

export function createRemoteBrowsers(o: RemoteBrowsersOptions): RemoteBrowsers {
  const now = o.now ?? Date.now;
  const sessions = new Map<string, Entry>();
  /** Opens under way, counted against the limits like open sessions. */
  const opening = new Map<string, number>();
  let stopped = false;

  const ofTenant = (tenantId: string) =>
    [...sessions.values()].filter((e) => e.owner.tenantId === tenantId).length + (opening.get(tenantId) ?? 0);
  const total = () => sessions.size + [...opening.values()].reduce((a, b) => a + b, 0);

  const openedOf = (entry: Entry): OpenedSession => ({
    id: entry.id,
    profileId: entry.profileId,
    viewport: entry.session.viewport,
    expiresAt: new Date(entry.openedAt + o.limits.maxMs),
    idleMs: o.limits.idleMs,
  });

  function entryOf(owner: SessionOwner, id: string): Entry {
    const entry = sessions.get(id);
    if (!entry || entry.owner.tenantId !== owner.tenantId || entry.owner.holder !== owner.holder)
      throw new RemoteBrowserError('not_found', 'No such remote browser for this session; it may have ended.');
    return entry;
  }

  async function finish(entry: Entry, reason: string): Promise<void> {
    if (!sessions.delete(entry.id)) return;
    entry.viewer?.end(reason);
    entry.viewer = null;
    await entry.session.close();
    o.log?.info({ sessionId: entry.id.slice(0, 8), tenantId: entry.owner.tenantId, reason }, 'remote browser ended');
    if (sessions.size === 0) o.browser.idle();
  }

  // One sweep for every session's limits: a second's precision is enough for limits of minutes.
  const sweepMs = Math.max(250, Math.min(5000, Math.floor(Math.min(o.limits.idleMs, o.limits.maxMs) / 5)));
  const sweeper = setInterval(() => {
    const t = now();
    for (const entry of sessions.values()) {
      if (entry.ending) continue;
      if (t - entry.openedAt >= o.limits.maxMs)
        void finish(entry, `The remote browser reached its limit of ${minutes(o.limits.maxMs)} and was closed.`);
      else if (t - entry.lastInput >= o.limits.idleMs)
        void finish(entry, `The remote browser was idle for ${minutes(o.limits.idleMs)} and was closed.`);
    }
  }, sweepMs);
  sweeper.unref();

  return {
    async open(owner, request) {
      if (stopped) throw new RemoteBrowserError('busy', 'The service is stopping; try again in a moment.');
      if (ofTenant(owner.tenantId) >= o.limits.perTenant)
        throw new RemoteBrowserError(
          'tenant_limit',
          `This tenant already has ${o.limits.perTenant} remote browser${o.limits.perTenant === 1 ? '' : 's'} open; save or cancel one first.`,
        );
      if (total() >= o.limits.total)
        throw new RemoteBrowserError(
          'busy',
          'Every remote browser of the service is in use; try again in a few minutes.',
        );
      opening.set(owner.tenantId, (opening.get(owner.tenantId) ?? 0) + 1);
      try {
        let initial: BrowserState | null = null;
        if (request.profileId !== undefined) {
          initial = await o.states.load(owner.tenantId, request.profileId);
          if (!initial) throw new RemoteBrowserError('unknown_profile', 'profileId: no such profile for this tenant.');
        }
        const browser = await o.browser.acquire();
        const session = await openBrowserSession({
          browser: browser.browser,
          proxyServer: browser.proxyServer,
          viewport: o.viewport,
          initial,
          ...(request.startUrl ? { startUrl: request.startUrl } : {}),
        });
        const t = now();
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
        sessions.set(entry.id, entry);
        session.onGone(() => void finish(entry, 'The remote browser stopped; open a new one.'));
        if (stopped) await finish(entry, 'The service is stopping.');
        return openedOf(entry);
      } finally {
        const left = (opening.get(owner.tenantId) ?? 1) - 1;
        if (left > 0) opening.set(owner.tenantId, left);
        else opening.delete(owner.tenantId);
        if (sessions.size === 0 && total() === 0) o.browser.idle();
      }
    },
    has(owner, id) {
      try {
        entryOf(owner, id);
        return true;
      } catch {
        return false;
      }
    },
    describe: (owner, id) => openedOf(entryOf(owner, id)),
    async connect(owner, id, viewer) {
      const entry = entryOf(owner, id);
      // One viewer at a time: a second view of the same session (another console tab) takes over.
      entry.viewer?.end('The remote browser was opened in another window.');
      entry.viewer = viewer;
      entry.lastInput = now();
      await entry.session.attach(viewer);
      return {
        message(m) {
          if (entry.viewer !== viewer || entry.ending) return;
          entry.lastInput = now();
          entry.session.handle(m);
        },
        leave() {
          if (entry.viewer !== viewer) return;
          entry.viewer = null;
          void entry.session.detach(viewer);
        },
      };
    },
    async save(owner, id, request) {
      const entry = entryOf(owner, id);
      if (entry.ending) throw new RemoteBrowserError('not_found', 'This remote browser is already being saved.');
      if (!entry.profileId && !request.name)
        throw new RemoteBrowserError('invalid', 'name: a new profile needs a name.');
      entry.ending = true;
      try {
        const state = await entry.session.state();
        const saved = await o.states.save({
          tenantId: owner.tenantId,
          actor: owner.actor,
          ...(entry.profileId ? { profileId: entry.profileId } : {}),
          ...(request.name ? { name: request.name } : {}),
          state,
        });
        await finish(entry, `Saved as version ${saved.version} of "${saved.name}".`);
        return saved;
      } catch (error) {
        entry.ending = false; // not saved: the person may try again or cancel
        throw error;
      }
    },
    async end(owner, id) {
      await finish(entryOf(owner, id), 'Closed without saving.');
    },
    count: () => sessions.size,
    async stop() {
      stopped = true;
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map((e) => finish(e, 'The service is stopping.')));
      await o.browser.close();
    },
  };
}

const minutes = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`);
