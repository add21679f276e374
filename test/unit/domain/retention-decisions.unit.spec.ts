import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { initialTenantState, tenantDecider } from '../../../src/domain/tenant/index.js';
import { deciderSpecification } from '../../support/decider-specification.js';

// Retention and legal hold: recorded with who, why and when; the tenant's state does not change.
const NOW = new Date('2026-11-26T10:00:00Z');
const AT = NOW.toISOString();
const given = deciderSpecification(tenantDecider, { key: 'keep', now: NOW });
const who = { by: 'counsel@example.com', reason: 'Case 24-cv-0113' };

describe('tenant decider: retention and legal hold', () => {
  it('records a tenant retention, a hold placed and lifted, and an extension, with who, why and when', () => {
    given()
      .when({ type: 'SetRetention', data: { days: 2555, ...who } })
      .then([{ type: 'tenant.retention_set', data: { days: 2555, ...who, at: AT } }], { at: AT });
    given()
      .when({ type: 'SetRetention', data: { days: null, ...who } })
      .then([{ type: 'tenant.retention_set', data: { days: null, ...who, at: AT } }], { at: AT });
    given()
      .when({ type: 'PlaceLegalHold', data: { captureId: 'cap_1', ...who } })
      .then([{ type: 'capture.legal_hold_placed', data: { captureId: 'cap_1', ...who, at: AT } }], { at: AT });
    given()
      .when({ type: 'LiftLegalHold', data: { captureId: 'cap_1', ...who } })
      .then([{ type: 'capture.legal_hold_lifted', data: { captureId: 'cap_1', ...who, at: AT } }], { at: AT });
    const until = '2033-11-26T10:00:00.000Z';
    given()
      .when({ type: 'ExtendRetention', data: { captureId: 'cap_1', retainUntil: until, ...who } })
      .then(
        [{ type: 'capture.retention_extended', data: { captureId: 'cap_1', retainUntil: until, ...who, at: AT } }],
        {
          at: AT,
        },
      );
  });

  it('leaves the state a decision needs as it was (snapshots unchanged)', () => {
    const state = initialTenantState('keep');
    const folded = tenantDecider.evolve(structuredClone(state), {
      type: 'capture.legal_hold_placed',
      data: { captureId: 'cap_1', ...who, at: AT },
      occurredAt: AT,
    });
    assert.deepEqual({ ...folded, exists: false }, state);
  });
});
