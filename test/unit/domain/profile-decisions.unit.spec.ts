import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TenantEvent } from '../../../src/domain/events.js';
import { tenantDecider } from '../../../src/domain/tenant/index.js';
import { evolveTenant, initialTenantState } from '../../../src/domain/tenant/tenant-state.js';
import { deciderSpecification } from '../../support/decider-specification.js';

// Browser profiles in the tenant decider (docs/profiles.md): given (events) / when (command) / then (events or error).
const NOW = new Date('2026-11-22T10:00:00Z');
const AT = NOW.toISOString();
const given = deciderSpecification(tenantDecider, { key: 'acme', now: NOW });
type Event<T extends TenantEvent['type']> = Extract<TenantEvent, { type: T }>;

const P = `prf_${'a'.repeat(32)}`;
const facts = { version: 1, sites: ['example.org'], cookieCount: 2, originCount: 0, digest: 'sha256:d1' };
const created: Event<'profile.created'> = {
  type: 'profile.created',
  data: { profileId: P, name: 'Shop', ...facts, createdAt: AT },
};
const url = 'https://example.org/members';

describe('tenant decider: browser profiles', () => {
  it('CreateProfile records the facts and digest, never contents', () => {
    given()
      .when({ type: 'CreateProfile', data: { profileId: P, name: 'Shop', ...facts } })
      .then([created], { createdAt: AT });
  });

  it('UpdateProfile takes only the next version; an unknown profile is 404', () => {
    const next = { ...facts, version: 2, digest: 'sha256:d2' };
    given(created)
      .when({ type: 'UpdateProfile', data: { profileId: P, ...next } })
      .then([{ type: 'profile.updated', data: { profileId: P, ...next, updatedAt: AT } }], { updatedAt: AT });
    given(created)
      .when({ type: 'UpdateProfile', data: { profileId: P, ...facts, version: 3 } })
      .thenThrows({ status: 409 });
    given()
      .when({ type: 'UpdateProfile', data: { profileId: P, ...facts, version: 2 } })
      .thenThrows({ status: 404 });
  });

  it('RenameProfile and DeleteProfile need a live profile', () => {
    given(created)
      .when({ type: 'RenameProfile', data: { profileId: P, name: 'Store' } })
      .then([{ type: 'profile.renamed', data: { profileId: P, name: 'Store', renamedAt: AT } }], { renamedAt: AT });
    const deleted: Event<'profile.deleted'> = { type: 'profile.deleted', data: { profileId: P, deletedAt: AT } };
    given(created)
      .when({ type: 'DeleteProfile', data: { profileId: P } })
      .then([deleted], { deletedAt: AT });
    given(created, deleted)
      .when({ type: 'DeleteProfile', data: { profileId: P } })
      .thenThrows({ status: 404 });
    given(created, deleted)
      .when({ type: 'RenameProfile', data: { profileId: P, name: 'x' } })
      .thenThrows({ status: 404 });
  });

  it("a capture with the tenant's profile is admitted with profile.used; another's is 422 naming the field", () => {
    const capture = { captureId: 'cap_1', url, options: { profile: P } };
    given(created)
      .when({ type: 'SubmitCaptures', data: { captures: [capture], source: 'single' } })
      .then([
        { type: 'capture.submitted', data: { captures: [capture], period: '2026-11', source: 'single' } },
        { type: 'profile.used', data: { profileId: P, captureId: 'cap_1', version: 1, digest: 'sha256:d1' } },
      ]);
    given()
      .when({ type: 'SubmitCaptures', data: { captures: [capture], source: 'single' } })
      .thenThrows({ status: 422, detail: `options.profile: no browser profile ${P} (GET /v1/profiles lists yours).` });
    given()
      .when({
        type: 'SubmitCaptures',
        data: { captures: [{ ...capture, captureId: 'cap_0' }, capture], source: 'batch' },
      })
      .thenThrows({ status: 422 });
  });

  it("a schedule needs the tenant's profile when made; its run after a deletion is admitted without profile.used", () => {
    const schedule = { scheduleId: 'sch_1', url, name: 'n', cron: '0 3 * * *', options: { profile: P } };
    given().when({ type: 'CreateSchedule', data: schedule }).thenThrows({ status: 422 });
    const scheduled: Event<'schedule.created'> = { type: 'schedule.created', data: { ...schedule, createdAt: AT } };
    const deleted: Event<'profile.deleted'> = { type: 'profile.deleted', data: { profileId: P, deletedAt: AT } };
    const fire = { scheduleId: 'sch_1', fireTime: '2026-11-22T03:00:00.000Z', captureId: 'cap_9' };
    given(created, scheduled, deleted)
      .when({ type: 'FireSchedule', data: fire })
      .then(
        [
          {
            type: 'capture.submitted',
            data: {
              captures: [{ captureId: 'cap_9', url, options: { profile: P } }],
              period: '2026-11',
              source: 'schedule',
              scheduleId: 'sch_1',
              fireTime: fire.fireTime,
            },
          },
        ],
        { kind: 'fired', captureId: 'cap_9' },
      );
  });

  it('the state keeps the latest version and name of live profiles only', () => {
    let state = initialTenantState('acme');
    const stamp = <E extends TenantEvent>(e: E) => ({ ...e, occurredAt: AT });
    state = evolveTenant(state, stamp(created));
    state = evolveTenant(
      state,
      stamp({ type: 'profile.renamed', data: { profileId: P, name: 'Store', renamedAt: AT } }),
    );
    state = evolveTenant(
      state,
      stamp({
        type: 'profile.updated',
        data: { profileId: P, ...facts, version: 2, digest: 'sha256:d2', updatedAt: AT },
      }),
    );
    assert.deepEqual(state.profiles.get(P), { name: 'Store', version: 2, digest: 'sha256:d2' });
    state = evolveTenant(state, stamp({ type: 'profile.deleted', data: { profileId: P, deletedAt: AT } }));
    assert.equal(state.profiles.size, 0);
  });
});
