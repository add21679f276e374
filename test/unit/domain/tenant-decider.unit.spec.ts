import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../../src/domain/errors.js';
import type { TenantEvent } from '../../../src/domain/events.js';
import {
  decideCompleteCapture,
  decideCreateKey,
  decideFireSchedule,
  decideRevokeKey,
  decideSubmitCaptures,
  evolveTenant,
  initialTenantState,
  type TenantState,
} from '../../../src/domain/tenant/index.js';

// given (events) / when (command) / then (events or error)
const NOW = new Date('2026-11-22T10:00:00Z');
const given = (...events: TenantEvent[]): TenantState =>
  events.reduce((s, e) => evolveTenant(s, { ...e, occurredAt: NOW.toISOString() }), initialTenantState('acme'));
const submitted = (n: number, period = '2026-11'): TenantEvent => ({
  type: 'capture.submitted',
  data: { captures: Array.from({ length: n }, (_, i) => ({ captureId: `cap_${period}_${i}_${Math.random()}`, url: 'https://example.org/' })), period, source: 'batch' },
});
const caps = (n: number) => Array.from({ length: n }, (_, i) => ({ captureId: `cap_new_${i}`, url: 'https://example.org/' }));

describe('tenant decider: keys', () => {
  it('creates a key, then revokes it once; a second revocation is a no-op with the original time', () => {
    const created = decideCreateKey({ keyHash: 'h1', scopes: ['capture'], name: 'k' }, given(), NOW);
    assert.equal(created.events[0]!.type, 'key.created');
    const state = given(...created.events);
    const revoked = decideRevokeKey({ keyHash: 'h1' }, state, NOW);
    assert.deepEqual(revoked.events, [{ type: 'key.revoked', data: { keyHash: 'h1', revokedAt: NOW.toISOString() } }]);
    const later = new Date(NOW.getTime() + 60_000);
    const again = decideRevokeKey({ keyHash: 'h1' }, given(...created.events, ...revoked.events), later);
    assert.deepEqual(again.events, []);
    assert.equal(again.reply.revokedAt, NOW.toISOString());
  });

  it('refuses to revoke an unknown key with 404', () => {
    assert.throws(() => decideRevokeKey({ keyHash: 'nope' }, given(), NOW), (e: DomainError) => e.status === 404);
  });
});

describe('tenant decider: quota admission', () => {
  it('admits up to the starter quota of 200 and refuses the next with a quota 429', () => {
    const state = given(submitted(199));
    const ok = decideSubmitCaptures({ captures: caps(1), source: 'single' }, state, NOW);
    assert.deepEqual(ok.reply, { limit: 200, used: 200, remaining: 0 });
    const full = given(submitted(200));
    assert.throws(
      () => decideSubmitCaptures({ captures: caps(1), source: 'single' }, full, NOW),
      (e: DomainError) => {
        assert.equal(e.status, 429);
        assert.equal(e.extras.body?.limitType, 'quota');
        const quota = e.extras.body?.quota as Record<string, unknown>;
        assert.deepEqual(quota, { resource: 'captures', limit: 200, used: 200, remaining: 0, resetsAt: '2026-12-01T00:00:00.000Z' });
        assert.equal(e.extras.headers?.['Retry-After'], 'Tue, 01 Dec 2026 00:00:00 GMT');
        return true;
      },
    );
  });

  it('checks a batch as a whole and reports requested', () => {
    const state = given({ type: 'tenant.quota_overrides_set', data: { capturesPerMonth: 10, storageBytes: null } }, submitted(8));
    assert.throws(
      () => decideSubmitCaptures({ captures: caps(3), source: 'batch' }, state, NOW),
      (e: DomainError) => (e.extras.body?.quota as { requested: number }).requested === 3,
    );
    assert.equal(decideSubmitCaptures({ captures: caps(2), source: 'batch' }, state, NOW).reply.remaining, 0);
  });

  it('starts a new month at zero', () => {
    const state = given(submitted(200, '2026-10'));
    assert.equal(decideSubmitCaptures({ captures: caps(1), source: 'single' }, state, NOW).reply.used, 1);
  });

  it('override null restores the tier default; pro tier has 5000', () => {
    const state = given(
      { type: 'tenant.tier_set', data: { tier: 'pro' } },
      { type: 'tenant.quota_overrides_set', data: { capturesPerMonth: 1, storageBytes: null } },
      { type: 'tenant.quota_overrides_set', data: { capturesPerMonth: null, storageBytes: null } },
    );
    assert.equal(decideSubmitCaptures({ captures: caps(1), source: 'single' }, state, NOW).reply.limit, 5000);
  });

  it('refuses when the storage quota is used up', () => {
    const sub = submitted(1);
    const captureId = (sub as Extract<TenantEvent, { type: 'capture.submitted' }>).data.captures[0]!.captureId;
    const state = given(
      { type: 'tenant.quota_overrides_set', data: { capturesPerMonth: null, storageBytes: 100 } },
      sub,
      {
        type: 'capture.completed',
        data: { captureId, completedAt: NOW.toISOString(), renderQuality: 'full', render: {}, artifacts: { screenshot: 'a', html: 'b' }, storedBytes: 150, attempts: 1 },
      },
    );
    assert.throws(
      () => decideSubmitCaptures({ captures: caps(1), source: 'single' }, state, NOW),
      (e: DomainError) => (e.extras.body?.quota as { resource: string }).resource === 'storage',
    );
  });
});

describe('tenant decider: capture outcomes are idempotent', () => {
  it('completes a pending capture once', () => {
    const sub = submitted(1);
    const captureId = (sub as Extract<TenantEvent, { type: 'capture.submitted' }>).data.captures[0]!.captureId;
    const data = { captureId, completedAt: NOW.toISOString(), renderQuality: 'full' as const, render: {}, artifacts: { screenshot: 'a', html: 'b' }, storedBytes: 1, attempts: 1 };
    const first = decideCompleteCapture(data, given(sub));
    assert.equal(first.events.length, 1);
    assert.equal(decideCompleteCapture(data, given(sub, ...first.events)).events.length, 0);
  });
});

describe('tenant decider: schedules fire once per fire time', () => {
  it('fires, then ignores the same or an earlier fire time, and skips over quota', () => {
    const created: TenantEvent = { type: 'schedule.created', data: { scheduleId: 'sch_1', url: 'https://example.org/', name: 'n', cron: '0 * * * *', createdAt: NOW.toISOString() } };
    const fire = decideFireSchedule({ scheduleId: 'sch_1', fireTime: '2026-11-22T10:00:00.000Z', captureId: 'cap_a' }, given(created), NOW);
    assert.equal(fire.reply.kind, 'fired');
    const again = decideFireSchedule({ scheduleId: 'sch_1', fireTime: '2026-11-22T10:00:00.000Z', captureId: 'cap_b' }, given(created, ...fire.events), NOW);
    assert.equal(again.reply.kind, 'not-due');
    const full = given({ type: 'tenant.quota_overrides_set', data: { capturesPerMonth: 0, storageBytes: null } }, created);
    const skipped = decideFireSchedule({ scheduleId: 'sch_1', fireTime: '2026-11-22T10:00:00.000Z', captureId: 'cap_c' }, full, NOW);
    assert.equal(skipped.events[0]!.type, 'schedule.skipped');
  });
});
