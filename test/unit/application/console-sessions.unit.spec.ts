import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createConsoleSessions,
  createMemorySessionStore,
  csrfTokenOf,
  isSessionId,
  type SessionRecord,
  type SessionStore,
  sessionEndsAt,
  sessionStoreKey,
  TOUCH_INTERVAL_MS,
} from '../../../src/application/console-sessions.js';
import { fixedClock } from '../../../src/domain/clock.js';

const policy = { idleMs: 30 * 60_000, maxMs: 60 * 60_000 };
const binding = { kind: 'tenant' as const, keyHash: 'a'.repeat(64) };

/** A memory store that counts writes. */
function countingStore(): SessionStore & { writes: number; keys(): string[] } {
  const inner = createMemorySessionStore();
  const keys = new Set<string>();
  const counter = {
    writes: 0,
    keys: () => [...keys],
    get: inner.get,
    async create(key: string, record: SessionRecord) {
      counter.writes++;
      keys.add(key);
      await inner.create(key, record);
    },
    async update(key: string, record: SessionRecord, revision: number) {
      counter.writes++;
      return inner.update(key, record, revision);
    },
    delete: inner.delete,
  };
  return counter;
}

describe('console sessions', () => {
  it('ends at the earlier of idle timeout and absolute lifetime', () => {
    assert.equal(sessionEndsAt({ createdAt: 0, lastSeen: 0 }, policy), 30 * 60_000);
    assert.equal(sessionEndsAt({ createdAt: 0, lastSeen: 50 * 60_000 }, policy), 60 * 60_000);
  });

  it('keys the store by a digest of the id and derives the CSRF token from it under another label', () => {
    const id = 'x'.repeat(43);
    const key = sessionStoreKey('tenant', id);
    assert.match(key, /^tenant\.[0-9a-f]{64}$/);
    assert.ok(!key.includes(id));
    assert.notEqual(sessionStoreKey('operator', id), key);
    assert.notEqual(csrfTokenOf(id), key.slice(7));
    assert.equal(csrfTokenOf(id), csrfTokenOf(id));
    assert.ok(!isSessionId('short') && !isSessionId(`${'x'.repeat(42)};`));
  });

  it('given a session, when used within the idle timeout, then it lives until its absolute lifetime', async () => {
    const clock = fixedClock(new Date('2025-01-01T00:00:00Z'));
    const store = countingStore();
    const sessions = createConsoleSessions(store, clock, policy);
    const { id, csrfToken, expiresAt } = await sessions.open(binding);
    assert.equal(expiresAt.toISOString(), '2025-01-01T00:30:00.000Z');
    assert.deepEqual(store.keys(), [sessionStoreKey('tenant', id)], 'the id itself is not stored');
    for (let i = 0; i < 2; i++) {
      clock.advance(25 * 60_000);
      const found = await sessions.find('tenant', id);
      assert.equal(found?.csrfToken, csrfToken);
    }
    clock.advance(10 * 60_000 + 1);
    assert.equal(await sessions.find('tenant', id), null, 'past the absolute lifetime');
    assert.equal(await sessions.find('tenant', id), null, 'and gone from the store');
  });

  it('given a session, when left idle past the timeout, then it has ended', async () => {
    const clock = fixedClock(new Date('2025-01-01T00:00:00Z'));
    const sessions = createConsoleSessions(createMemorySessionStore(), clock, policy);
    const { id } = await sessions.open(binding);
    clock.advance(30 * 60_000);
    assert.equal(await sessions.find('tenant', id), null);
  });

  it('refreshes the stored lastSeen at most once a minute', async () => {
    const clock = fixedClock(new Date('2025-01-01T00:00:00Z'));
    const store = countingStore();
    const sessions = createConsoleSessions(store, clock, policy);
    const { id } = await sessions.open(binding);
    for (let i = 0; i < 100; i++) {
      clock.advance(1000);
      await sessions.find('tenant', id);
    }
    // 100 s of requests every second: the sign-in and one refresh after the first minute.
    assert.equal(store.writes, 1 + Math.floor((100 * 1000) / TOUCH_INTERVAL_MS));
  });

  it('never brings back an ended session: a refresh loses to the end', async () => {
    const clock = fixedClock(new Date('2025-01-01T00:00:00Z'));
    const inner = createMemorySessionStore();
    let endFirst: (() => Promise<void>) | undefined;
    const racing: SessionStore = {
      ...inner,
      async update(key, record, revision) {
        await endFirst?.();
        return inner.update(key, record, revision);
      },
    };
    const sessions = createConsoleSessions(racing, clock, policy);
    const { id } = await sessions.open(binding);
    endFirst = () => sessions.end('tenant', id);
    clock.advance(2 * 60_000);
    await sessions.find('tenant', id);
    endFirst = undefined;
    assert.equal(await sessions.find('tenant', id), null);
  });

  it('finds nothing for an id of another kind, or a malformed one', async () => {
    const sessions = createConsoleSessions(createMemorySessionStore(), fixedClock(new Date()), policy);
    const { id } = await sessions.open(binding);
    assert.equal(await sessions.find('operator', id), null);
    assert.equal(await sessions.find('tenant', 'not an id'), null);
  });
});
