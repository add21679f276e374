import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../domain/clock.js';

/**
 * Console sign-in sessions (docs/security.md, Console sessions). The browser holds an opaque random
 * id in an HttpOnly cookie; the store holds, under a digest of that id, what the session stands for — the tenant
 * key's hash, a digest of the admin or analyst key, or an OpenID Connect identity and its mapping — and when it started and was
 * last used. Who the session is, and whether that still holds (a revoked key, a changed ADMIN_KEY, a removed OIDC
 * mapping), is decided by the guards on every request; this module only keeps the sessions and their two clocks:
 * idle timeout and absolute lifetime.
 */

export type ConsoleSessionKind = 'tenant' | 'operator' | 'analyst';

/** What a session stands for: re-checked on every request, so revoking the key or changing ADMIN_KEY ends it. */
export type SessionBinding =
  | { kind: 'tenant'; keyHash: string }
  /** The legacy single key (spec 5.10): a digest of CAPTURE_API_KEY, valid while that key is. */
  | { kind: 'tenant'; legacyKeyDigest: string }
  /**
   * A person signed in with OpenID Connect (src/application/console-oidc.ts): the tenant and scopes their claim
   * mapped to, and the claim's values, mapped again on every request so that a changed configuration ends it.
   */
  | { kind: 'tenant'; oidc: OidcSessionBinding; tenantId: string; scopes: ('capture' | 'read')[] }
  | { kind: 'operator'; adminKeyDigest: string }
  /** An analyst (the report routes only): a digest of ANALYST_KEY, valid while that key is. */
  | { kind: 'analyst'; analystKeyDigest: string };

export interface OidcSessionBinding {
  /** The configured provider's id and its issuer at sign-in (a provider pointed elsewhere ends the session). */
  provider: string;
  issuer: string;
  /** The ID token's `sub`. */
  subject: string;
  /** The mapped claim's name and its values at sign-in (one for a string claim, every element of an array claim). */
  claim: string;
  claimValues: string[];
}

/** The stored record (JSON in the store). Times are epoch milliseconds. */
export type SessionRecord = SessionBinding & { v: 1; createdAt: number; lastSeen: number };

export interface SessionPolicy {
  idleMs: number;
  maxMs: number;
}

/** The stored lastSeen is refreshed at most this often, so a busy console costs one write a minute, not one a request. */
export const TOUCH_INTERVAL_MS = 60_000;

/** Where a session is kept: a KV bucket across processes (src/infra/kv-console-session-store.ts), memory in tests. */
export interface SessionStore {
  get(key: string): Promise<{ record: SessionRecord; revision: number } | null>;
  create(key: string, record: SessionRecord): Promise<void>;
  /** Write only if the entry is still at `revision` (so a refresh never brings back a session ended meanwhile). */
  update(key: string, record: SessionRecord, revision: number): Promise<boolean>;
  delete(key: string): Promise<void>;
}

export interface LiveSession {
  record: SessionRecord;
  csrfToken: string;
  expiresAt: Date;
}

export interface ConsoleSessions {
  /** A new session: its id (for the cookie only), CSRF token and when it ends if left idle. */
  open(binding: SessionBinding): Promise<{ id: string; csrfToken: string; expiresAt: Date }>;
  /** The live session of this id, its lastSeen refreshed when due; null when unknown, ended or expired. */
  find(kind: ConsoleSessionKind, id: string): Promise<LiveSession | null>;
  /** End it (sign-out, a revoked key, a changed admin key). Ending an unknown session is not an error. */
  end(kind: ConsoleSessionKind, id: string): Promise<void>;
}

const sha256 = (text: string) => createHash('sha256').update(text);

/** The store key of a session: its kind and a digest of the id, so the store never holds a usable id. */
export const sessionStoreKey = (kind: ConsoleSessionKind, id: string): string =>
  `${kind}.${sha256(`capture-ledger console session\0${id}`).digest('hex')}`;

/**
 * The session's CSRF token, derived from its id under another label: nothing more to store, and knowing the store
 * key (or the token) does not give the id.
 */
export const csrfTokenOf = (id: string): string => sha256(`capture-ledger console csrf\0${id}`).digest('base64url');

/** A digest of a configured secret (ADMIN_KEY, ANALYST_KEY, CAPTURE_API_KEY) to keep in a session instead of the secret. */
export const secretDigest = (secret: string): string =>
  sha256(`capture-ledger console secret\0${secret}`).digest('hex');

/** 256 random bits, base64url: the cookie value. */
export const newSessionId = (): string => randomBytes(32).toString('base64url');

/** A session id as a cookie may carry it; anything else names no session (and is never looked up). */
export const isSessionId = (id: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(id);

/** When the session ends if no request comes: the earlier of idle timeout and absolute lifetime. */
export const sessionEndsAt = (r: Pick<SessionRecord, 'createdAt' | 'lastSeen'>, policy: SessionPolicy): number =>
  Math.min(r.lastSeen + policy.idleMs, r.createdAt + policy.maxMs);

export const isLive = (r: SessionRecord, now: number, policy: SessionPolicy): boolean => now < sessionEndsAt(r, policy);

export const needsTouch = (r: SessionRecord, now: number): boolean => now - r.lastSeen >= TOUCH_INTERVAL_MS;

export function createConsoleSessions(store: SessionStore, clock: Clock, policy: SessionPolicy): ConsoleSessions {
  const now = () => clock.now().getTime();
  return {
    async open(binding) {
      const id = newSessionId();
      const t = now();
      const record: SessionRecord = { ...binding, v: 1, createdAt: t, lastSeen: t };
      await store.create(sessionStoreKey(binding.kind, id), record);
      return { id, csrfToken: csrfTokenOf(id), expiresAt: new Date(sessionEndsAt(record, policy)) };
    },
    async find(kind, id) {
      if (!isSessionId(id)) return null;
      const key = sessionStoreKey(kind, id);
      const found = await store.get(key);
      if (!found || found.record.kind !== kind) return null;
      const t = now();
      if (!isLive(found.record, t, policy)) {
        await store.delete(key);
        return null;
      }
      let record = found.record;
      if (needsTouch(record, t)) {
        const touched = { ...record, lastSeen: t };
        // Lost to a concurrent refresh (fine) or to an end (the next request finds it gone).
        if (await store.update(key, touched, found.revision)) record = touched;
      }
      return { record, csrfToken: csrfTokenOf(id), expiresAt: new Date(sessionEndsAt(record, policy)) };
    },
    async end(kind, id) {
      if (isSessionId(id)) await store.delete(sessionStoreKey(kind, id));
    },
  };
}

/** The policy from the configuration. */
export const sessionPolicy = (cfg: {
  CONSOLE_SESSION_IDLE_MINUTES: number;
  CONSOLE_SESSION_MAX_HOURS: number;
}): SessionPolicy => ({
  idleMs: cfg.CONSOLE_SESSION_IDLE_MINUTES * 60_000,
  maxMs: cfg.CONSOLE_SESSION_MAX_HOURS * 3_600_000,
});

/** In this process's memory: unit tests, and nothing else. */
export function createMemorySessionStore(): SessionStore {
  const entries = new Map<string, { record: SessionRecord; revision: number }>();
  let revision = 0;
  return {
    async get(key) {
      return entries.get(key) ?? null;
    },
    async create(key, record) {
      entries.set(key, { record, revision: ++revision });
    },
    async update(key, record, expected) {
      if (entries.get(key)?.revision !== expected) return false;
      entries.set(key, { record, revision: ++revision });
      return true;
    },
    async delete(key) {
      entries.delete(key);
    },
  };
}
