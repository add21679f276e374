import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TenantEvent } from '../../../src/domain/events.js';
import {
  decideTenant,
  decodeTenantState,
  encodeTenantState,
  evolveTenant,
  initialTenantState,
  SnapshotShapeError,
  type TenantState,
} from '../../../src/domain/tenant/index.js';
import { randomTenantEvents, seededRandom } from '../../support/random-tenant-events.js';

const fold = (state: TenantState, events: Array<TenantEvent & { occurredAt: string }>) =>
  events.reduce((s, e) => evolveTenant(s, e), state);
/** Through JSON bytes, as a snapshot travels through the KV bucket. */
const roundTrip = (state: TenantState) =>
  decodeTenantState(state.tenantId, JSON.parse(JSON.stringify(encodeTenantState(state))));

describe('tenant state snapshots', () => {
  it('snapshot + tail equals the full fold, at every cut of random event sequences (property)', () => {
    const seeds = Array.from({ length: 60 }, (_, i) => 1000 + i);
    for (const seed of seeds) {
      const events = randomTenantEvents(seededRandom(seed), 120);
      const full = encodeTenantState(fold(initialTenantState('acme'), events));
      for (let cut = 0; cut <= events.length; cut += 1 + (seed % 7)) {
        const fromSnapshot = fold(roundTrip(fold(initialTenantState('acme'), events.slice(0, cut))), events.slice(cut));
        // deepEqual of the encoded form compares Map contents *and* their iteration order.
        assert.deepEqual(encodeTenantState(fromSnapshot), full, `seed ${seed}, snapshot after ${cut} events`);
      }
    }
  });

  it('a decoded state decides like the folded one (a schedule fires once per fire time)', () => {
    const created: TenantEvent & { occurredAt: string } = {
      type: 'schedule.created',
      data: {
        scheduleId: 'sch_1',
        url: 'https://example.org/',
        name: 'n',
        cron: '0 * * * *',
        createdAt: '2026-11-01T00:00:00.000Z',
      },
      occurredAt: '2026-11-01T00:00:00.000Z',
    };
    const fired: TenantEvent & { occurredAt: string } = {
      type: 'capture.submitted',
      data: {
        captures: [{ captureId: 'cap_1', url: 'https://example.org/' }],
        period: '2026-11',
        source: 'schedule',
        scheduleId: 'sch_1',
        fireTime: '2026-11-01T01:00:00.000Z',
      },
      occurredAt: '2026-11-01T01:00:00.000Z',
    };
    const state = roundTrip(fold(initialTenantState('acme'), [created, fired]));
    const now = new Date('2026-11-01T01:00:05Z');
    const fire = (fireTime: string) =>
      decideTenant({ type: 'FireSchedule', data: { scheduleId: 'sch_1', fireTime, captureId: 'cap_2' } }, state, now);
    assert.deepEqual(fire('2026-11-01T01:00:00.000Z').reply, { kind: 'not-due' });
    assert.equal(fire('2026-11-01T02:00:00.000Z').reply.kind, 'fired');
  });

  it('keeps no trace of deleted schedules and webhooks or of finished captures (state does not grow with history)', () => {
    const events = randomTenantEvents(seededRandom(7), 5000);
    const state = fold(initialTenantState('acme'), events);
    const finished = new Set(
      events.flatMap((e) => (e.type === 'capture.completed' || e.type === 'capture.failed' ? [e.data.captureId] : [])),
    );
    assert.ok([...state.pending.keys()].every((id) => !finished.has(id)));
    const deletedSchedules = new Set(events.flatMap((e) => (e.type === 'schedule.deleted' ? [e.data.scheduleId] : [])));
    assert.ok(deletedSchedules.size > 0 && [...state.schedules.keys()].every((id) => !deletedSchedules.has(id)));
    const deletedHooks = new Set(events.flatMap((e) => (e.type === 'webhook.deleted' ? [e.data.webhookId] : [])));
    assert.ok(deletedHooks.size > 0 && [...state.webhooks.keys()].every((id) => !deletedHooks.has(id)));
    assert.deepEqual(Object.keys(encodeTenantState(state)).sort(), [
      'exists',
      'keys',
      'overrides',
      'pending',
      'profiles',
      'schedules',
      'tenantId',
      'tier',
      'usage',
      'webhooks',
    ]);
  });

  it('refuses a state of another tenant or of another shape', () => {
    const encoded = encodeTenantState(initialTenantState('acme'));
    assert.throws(() => decodeTenantState('other', encoded), SnapshotShapeError);
    assert.throws(() => decodeTenantState('acme', { ...encoded, tier: 'gold' }), SnapshotShapeError);
    assert.throws(() => decodeTenantState('acme', { ...encoded, pending: {} }), SnapshotShapeError);
    assert.throws(() => decodeTenantState('acme', { ...encoded, usage: { period: '2026-11' } }), SnapshotShapeError);
    assert.throws(() => decodeTenantState('acme', null), SnapshotShapeError);
  });
});
