import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TenantEvent } from '../../../src/domain/events.js';
import { MAX_WEBHOOKS, tenantDecider, type TenantCommandOf } from '../../../src/domain/tenant/index.js';
import { deciderSpecification } from '../../support/decider-specification.js';

// Every branch of decideTenant: given (events) / when (command) / then (events and reply, or a DomainError).
const NOW = new Date('2026-11-22T10:00:00Z');
const AT = NOW.toISOString();
const given = deciderSpecification(tenantDecider, { key: 'acme', now: NOW });

type Event<T extends TenantEvent['type']> = Extract<TenantEvent, { type: T }>;
const url = 'https://example.org/';
const caps = (n: number, prefix = 'cap_new') =>
  Array.from({ length: n }, (_, i) => ({ captureId: `${prefix}_${i}`, url }));
const submitted = (n: number, period = '2026-11', prefix = `cap_${period}`): Event<'capture.submitted'> => ({
  type: 'capture.submitted',
  data: { captures: caps(n, prefix), period, source: 'batch' },
});
const keyCreated: Event<'key.created'> = {
  type: 'key.created',
  data: { keyHash: 'h1', scopes: ['capture'], name: 'k', createdAt: '2026-11-01T00:00:00.000Z' },
};
const overrides = (
  capturesPerMonth: number | null,
  storageBytes: number | null = null,
): Event<'tenant.quota_overrides_set'> => ({
  type: 'tenant.quota_overrides_set',
  data: { capturesPerMonth, storageBytes },
});
const completion = (captureId: string, storedBytes = 1): TenantCommandOf<'CompleteCapture'>['data'] => ({
  captureId,
  completedAt: AT,
  renderQuality: 'full',
  render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 },
  artifacts: { screenshot: 'a', html: 'b' },
  storedBytes,
  attempts: 1,
});
const webhookRegistered = (webhookId: string): Event<'webhook.registered'> => ({
  type: 'webhook.registered',
  data: {
    webhookId,
    url: 'https://hooks.example.org/',
    events: ['capture.complete'],
    name: 'hook',
    sealedSecret: 'sealed',
    createdAt: AT,
  },
});
const scheduleCreated = (scheduleId: string, options?: { pdf: boolean }): Event<'schedule.created'> => ({
  type: 'schedule.created',
  data: { scheduleId, url, name: 'n', cron: '0 * * * *', createdAt: AT, ...(options ? { options } : {}) },
});

describe('tenant decider: keys (spec 4.11)', () => {
  it('CreateKey records the key with its creation time', () => {
    given()
      .when({ type: 'CreateKey', data: { keyHash: 'h1', scopes: ['capture'], name: 'k' } })
      .then([{ type: 'key.created', data: { keyHash: 'h1', scopes: ['capture'], name: 'k', createdAt: AT } }], {
        createdAt: AT,
      });
  });

  it('CreateKey refuses a hash that exists with 409, revoked or not', () => {
    given(keyCreated)
      .when({ type: 'CreateKey', data: { keyHash: 'h1', scopes: ['read'], name: 'again' } })
      .thenThrows({ status: 409, title: 'Conflict' });
    given(keyCreated, { type: 'key.revoked', data: { keyHash: 'h1', revokedAt: AT } })
      .when({ type: 'CreateKey', data: { keyHash: 'h1', scopes: ['read'], name: 'again' } })
      .thenThrows({ status: 409 });
  });

  it('RevokeKey revokes an active key', () => {
    given(keyCreated)
      .when({ type: 'RevokeKey', data: { keyHash: 'h1' } })
      .then([{ type: 'key.revoked', data: { keyHash: 'h1', revokedAt: AT } }], {
        revokedAt: AT,
        alreadyRevoked: false,
      });
  });

  it('RevokeKey of a revoked key is a no-op answering with the original time', () => {
    const later = new Date(NOW.getTime() + 60_000);
    given(keyCreated, { type: 'key.revoked', data: { keyHash: 'h1', revokedAt: AT } })
      .when({ type: 'RevokeKey', data: { keyHash: 'h1' } }, later)
      .thenNothingHappened({ revokedAt: AT, alreadyRevoked: true });
  });

  it('RevokeKey of an unknown key is 404', () => {
    given()
      .when({ type: 'RevokeKey', data: { keyHash: 'nope' } })
      .thenThrows({ status: 404, detail: 'nope' });
  });
});

describe('tenant decider: tier and quota overrides (spec 8.2)', () => {
  it('SetTier records a new tier', () => {
    given(keyCreated)
      .when({ type: 'SetTier', data: { tier: 'pro' } })
      .then([{ type: 'tenant.tier_set', data: { tier: 'pro' } }], null);
  });

  it('SetTier to the current tier is a no-op for a tenant that exists, and recorded for a new one (it creates the tenant)', () => {
    given(keyCreated)
      .when({ type: 'SetTier', data: { tier: 'starter' } })
      .thenNothingHappened(null);
    given({ type: 'tenant.tier_set', data: { tier: 'pro' } })
      .when({ type: 'SetTier', data: { tier: 'pro' } })
      .thenNothingHappened(null);
    given()
      .when({ type: 'SetTier', data: { tier: 'starter' } })
      .then([{ type: 'tenant.tier_set', data: { tier: 'starter' } }]);
  });

  it('SetQuotaOverrides records changed overrides', () => {
    given(keyCreated)
      .when({ type: 'SetQuotaOverrides', data: { capturesPerMonth: 10, storageBytes: null } })
      .then([overrides(10)], null);
    given(overrides(10))
      .when({ type: 'SetQuotaOverrides', data: { capturesPerMonth: 10, storageBytes: 5 } })
      .then([overrides(10, 5)]);
  });

  it('SetQuotaOverrides to the current overrides is a no-op for a tenant that exists, and recorded for a new one', () => {
    given(overrides(10, 5))
      .when({ type: 'SetQuotaOverrides', data: { capturesPerMonth: 10, storageBytes: 5 } })
      .thenNothingHappened(null);
    given()
      .when({ type: 'SetQuotaOverrides', data: { capturesPerMonth: null, storageBytes: null } })
      .then([overrides(null)]);
  });
});

describe('tenant decider: SubmitCaptures (quota admission)', () => {
  const single = (n = 1) => ({
    type: 'SubmitCaptures' as const,
    data: { captures: caps(n), source: 'single' as const },
  });
  const batch = (n: number) => ({
    type: 'SubmitCaptures' as const,
    data: { captures: caps(n), source: 'batch' as const },
  });

  it('admits a submission as one event in the current period and answers with the quota after it', () => {
    given(submitted(199))
      .when(single())
      .then([{ type: 'capture.submitted', data: { captures: caps(1), period: '2026-11', source: 'single' } }], {
        limit: 200,
        used: 200,
        remaining: 0,
      });
  });

  it('refuses past the starter quota of 200 with the quota 429 of spec 7.3', () => {
    const err = given(submitted(200))
      .when(single())
      .thenThrows({ status: 429, title: 'Quota Exceeded', detail: 'Monthly capture quota of 200 is used up' });
    assert.equal(err.extras.body?.limitType, 'quota');
    assert.deepEqual(err.extras.body?.quota, {
      resource: 'captures',
      limit: 200,
      used: 200,
      remaining: 0,
      resetsAt: '2026-12-01T00:00:00.000Z',
    });
    assert.equal(err.extras.headers?.['Retry-After'], 'Tue, 01 Dec 2026 00:00:00 GMT');
  });

  it('checks a batch as a whole: refused with `requested` when it does not fit, admitted when it does', () => {
    const full = [overrides(10), submitted(8)] as const;
    const err = given(...full)
      .when(batch(3))
      .thenThrows({ status: 429, detail: 'This batch needs 3 captures but only 2' });
    assert.equal((err.extras.body!.quota as { requested: number }).requested, 3);
    assert.deepEqual(
      given(...full)
        .when(batch(2))
        .then([{ type: 'capture.submitted', data: { captures: caps(2), period: '2026-11', source: 'batch' } }]).reply,
      {
        limit: 10,
        used: 10,
        remaining: 0,
      },
    );
  });

  it('refuses when the storage quota is used up', () => {
    const err = given(overrides(null, 100), submitted(1, '2026-11', 'cap_s'), {
      type: 'capture.completed',
      data: completion('cap_s_0', 150),
    })
      .when(single())
      .thenThrows({ status: 429, detail: 'storage quota' });
    assert.equal((err.extras.body!.quota as { resource: string }).resource, 'storage');
  });

  it('starts a new month at zero', () => {
    assert.equal(
      given(submitted(200, '2026-10'))
        .when(single())
        .then([{ type: 'capture.submitted', data: { captures: caps(1), period: '2026-11', source: 'single' } }]).reply
        .used,
      1,
    );
  });

  it('uses the tier default when an override is cleared (pro: 5000)', () => {
    const decision = given({ type: 'tenant.tier_set', data: { tier: 'pro' } }, overrides(1), overrides(null))
      .when(single())
      .then([{ type: 'capture.submitted', data: { captures: caps(1), period: '2026-11', source: 'single' } }]);
    assert.equal(decision.reply.limit, 5000);
  });

  it('carries a schedule run’s scheduleId and fireTime into the event', () => {
    given()
      .when({
        type: 'SubmitCaptures',
        data: { captures: caps(1), source: 'schedule', scheduleId: 'sch_1', fireTime: AT },
      })
      .then([
        {
          type: 'capture.submitted',
          data: { captures: caps(1), period: '2026-11', source: 'schedule', scheduleId: 'sch_1', fireTime: AT },
        },
      ]);
  });
});

describe('tenant decider: capture outcomes are idempotent (decision 3)', () => {
  const pending = submitted(1, '2026-11', 'cap_p');

  it('CompleteCapture completes a pending capture', () => {
    given(pending)
      .when({ type: 'CompleteCapture', data: completion('cap_p_0') })
      .then([{ type: 'capture.completed', data: completion('cap_p_0') }], { applied: true });
  });

  it('CompleteCapture of a capture that is not pending is a no-op (a repeat, or an unknown id)', () => {
    given(pending, { type: 'capture.completed', data: completion('cap_p_0') })
      .when({ type: 'CompleteCapture', data: completion('cap_p_0') })
      .thenNothingHappened({ applied: false });
    given()
      .when({ type: 'CompleteCapture', data: completion('cap_unknown') })
      .thenNothingHappened({ applied: false });
  });

  it('FailCapture fails a pending capture at the time of the decision', () => {
    given(pending)
      .when({
        type: 'FailCapture',
        data: { captureId: 'cap_p_0', error: 'DNS lookup failed', retryable: false, attempts: 3 },
      })
      .then(
        [
          {
            type: 'capture.failed',
            data: { captureId: 'cap_p_0', error: 'DNS lookup failed', retryable: false, attempts: 3, failedAt: AT },
          },
        ],
        { applied: true },
      );
  });

  it('FailCapture of a capture that is not pending is a no-op (already complete, or failed)', () => {
    const fail = {
      type: 'FailCapture' as const,
      data: { captureId: 'cap_p_0', error: 'x', retryable: true, attempts: 3 },
    };
    given(pending, { type: 'capture.completed', data: completion('cap_p_0') })
      .when(fail)
      .thenNothingHappened({ applied: false });
    given(pending, { type: 'capture.failed', data: { ...fail.data, failedAt: AT } })
      .when(fail)
      .thenNothingHappened({ applied: false });
  });
});

describe('tenant decider: webhooks (spec 4.13)', () => {
  const register = (webhookId: string) => ({
    type: 'RegisterWebhook' as const,
    data: {
      webhookId,
      url: 'https://hooks.example.org/',
      events: ['capture.complete' as const],
      name: 'hook',
      sealedSecret: 'sealed',
    },
  });

  it('RegisterWebhook records the webhook with its sealed secret', () => {
    given()
      .when(register('whk_1'))
      .then([webhookRegistered('whk_1')], { createdAt: AT });
  });

  it(`RegisterWebhook refuses a ${MAX_WEBHOOKS + 1}th webhook with 409; a deleted one frees its slot`, () => {
    const five = Array.from({ length: MAX_WEBHOOKS }, (_, i) => webhookRegistered(`whk_${i}`));
    given(...five)
      .when(register('whk_x'))
      .thenThrows({ status: 409, detail: `already has ${MAX_WEBHOOKS} webhooks` });
    given(...five, { type: 'webhook.deleted', data: { webhookId: 'whk_0', deletedAt: AT } })
      .when(register('whk_x'))
      .then([webhookRegistered('whk_x')]);
  });

  it('DeleteWebhook deletes an active webhook', () => {
    given(webhookRegistered('whk_1'))
      .when({ type: 'DeleteWebhook', data: { webhookId: 'whk_1' } })
      .then([{ type: 'webhook.deleted', data: { webhookId: 'whk_1', deletedAt: AT } }], null);
  });

  it('DeleteWebhook of an unknown or deleted webhook is 404', () => {
    given()
      .when({ type: 'DeleteWebhook', data: { webhookId: 'whk_1' } })
      .thenThrows({ status: 404 });
    given(webhookRegistered('whk_1'), { type: 'webhook.deleted', data: { webhookId: 'whk_1', deletedAt: AT } })
      .when({ type: 'DeleteWebhook', data: { webhookId: 'whk_1' } })
      .thenThrows({ status: 404 });
  });

  it('RecordDeliveryAttempt records every attempt, a repeated one too (readers key by delivery and attempt)', () => {
    const data = {
      deliveryId: 'dlv_1',
      webhookId: 'whk_1',
      eventId: 'evt_1',
      eventType: 'capture.complete',
      attempt: 2,
      outcome: 'failed' as const,
      httpStatus: 500,
      latencyMs: 12,
    };
    const attempted: Event<'webhook.delivery_attempted'> = { type: 'webhook.delivery_attempted', data };
    given().when({ type: 'RecordDeliveryAttempt', data }).then([attempted], null);
    given(attempted).when({ type: 'RecordDeliveryAttempt', data }).then([attempted], null);
  });

  it('DeadLetterDelivery records the delivery given up', () => {
    const data = {
      deliveryId: 'dlv_1',
      webhookId: 'whk_1',
      eventId: 'evt_1',
      eventType: 'capture.complete',
      attempts: 4,
      reason: 'HTTP 500',
    };
    given()
      .when({ type: 'DeadLetterDelivery', data })
      .then([{ type: 'webhook.delivery_dead_lettered', data }], null);
  });
});

describe('tenant decider: schedules (spec 4.12)', () => {
  const create = (scheduleId: string) => ({
    type: 'CreateSchedule' as const,
    data: { scheduleId, url, name: 'n', cron: '0 * * * *' },
  });
  const fire = (fireTime: string, captureId = 'cap_f') => ({
    type: 'FireSchedule' as const,
    data: { scheduleId: 'sch_1', fireTime, captureId },
  });
  const T1 = '2026-11-22T10:00:00.000Z';
  const T0 = '2026-11-22T09:00:00.000Z';
  const run = (fireTime: string, captureId = 'cap_f', options?: { pdf: boolean }): Event<'capture.submitted'> => ({
    type: 'capture.submitted',
    data: {
      captures: [{ captureId, url, ...(options ? { options } : {}) }],
      period: '2026-11',
      source: 'schedule',
      scheduleId: 'sch_1',
      fireTime,
    },
  });

  it('CreateSchedule records the schedule', () => {
    given()
      .when(create('sch_1'))
      .then([{ type: 'schedule.created', data: { ...create('sch_1').data, createdAt: AT } }], { createdAt: AT });
  });

  it('CreateSchedule past the tier’s active schedules (starter: 5) is 429 Too Many Schedules', () => {
    const five = ['a', 'b', 'c', 'd', 'e'].map((id) => scheduleCreated(id));
    const err = given(...five)
      .when(create('sch_x'))
      .thenThrows({ status: 429, title: 'Too Many Schedules', detail: 'starter tier allows 5' });
    assert.deepEqual(err.extras.body, { limitType: 'schedules' });
    given(...five, { type: 'tenant.tier_set', data: { tier: 'pro' } })
      .when(create('sch_x'))
      .then([{ type: 'schedule.created', data: { ...create('sch_x').data, createdAt: AT } }]);
  });

  it('DeleteSchedule deletes an active schedule', () => {
    given(scheduleCreated('sch_1'))
      .when({ type: 'DeleteSchedule', data: { scheduleId: 'sch_1' } })
      .then([{ type: 'schedule.deleted', data: { scheduleId: 'sch_1', deletedAt: AT } }], null);
  });

  it('DeleteSchedule of an unknown or deleted schedule is 404', () => {
    given()
      .when({ type: 'DeleteSchedule', data: { scheduleId: 'sch_1' } })
      .thenThrows({ status: 404 });
    given(scheduleCreated('sch_1'), { type: 'schedule.deleted', data: { scheduleId: 'sch_1', deletedAt: AT } })
      .when({ type: 'DeleteSchedule', data: { scheduleId: 'sch_1' } })
      .thenThrows({ status: 404 });
  });

  it('FireSchedule submits a capture of the schedule’s URL, with its options, for the fire time', () => {
    given(scheduleCreated('sch_1'))
      .when(fire(T1))
      .then([run(T1)], { kind: 'fired', captureId: 'cap_f' });
    given(scheduleCreated('sch_1', { pdf: true }))
      .when(fire(T1))
      .then([run(T1, 'cap_f', { pdf: true })]);
  });

  it('FireSchedule for a fire time at or before the last handled one is a no-op (not-due)', () => {
    given(scheduleCreated('sch_1'), run(T1)).when(fire(T1, 'cap_again')).thenNothingHappened({ kind: 'not-due' });
    given(scheduleCreated('sch_1'), run(T1)).when(fire(T0, 'cap_again')).thenNothingHappened({ kind: 'not-due' });
    const skipped: Event<'schedule.skipped'> = {
      type: 'schedule.skipped',
      data: { scheduleId: 'sch_1', fireTime: T1, reason: 'quota', detail: 'x' },
    };
    given(scheduleCreated('sch_1'), skipped).when(fire(T1)).thenNothingHappened({ kind: 'not-due' });
  });

  it('FireSchedule of an unknown or deleted schedule is a no-op (not-due), never a refusal', () => {
    given().when(fire(T1)).thenNothingHappened({ kind: 'not-due' });
    given(scheduleCreated('sch_1'), { type: 'schedule.deleted', data: { scheduleId: 'sch_1', deletedAt: AT } })
      .when(fire(T1))
      .thenNothingHappened({ kind: 'not-due' });
  });

  it('FireSchedule over the monthly quota records the run as skipped instead of refusing', () => {
    const d = given(overrides(0), scheduleCreated('sch_1'))
      .when(fire(T1))
      .then([
        {
          type: 'schedule.skipped',
          data: {
            scheduleId: 'sch_1',
            fireTime: T1,
            reason: 'quota',
            detail: 'Monthly capture quota of 0 is used up (0 used); it resets at 2026-12-01T00:00:00.000Z.',
          },
        },
      ]);
    assert.deepEqual(d.reply, {
      kind: 'skipped',
      detail: 'Monthly capture quota of 0 is used up (0 used); it resets at 2026-12-01T00:00:00.000Z.',
    });
    // Storage used up skips too.
    const storageFull = [
      overrides(null, 10),
      submitted(1, '2026-11', 'cap_s'),
      { type: 'capture.completed' as const, data: completion('cap_s_0', 10) },
    ];
    assert.equal(
      given(...storageFull, scheduleCreated('sch_1'))
        .when(fire(T1))
        .then([
          {
            type: 'schedule.skipped',
            data: {
              scheduleId: 'sch_1',
              fireTime: T1,
              reason: 'quota',
              detail: 'Monthly storage quota of 10 bytes is used up (10 used); it resets at 2026-12-01T00:00:00.000Z.',
            },
          },
        ]).reply.kind,
      'skipped',
    );
  });
});

describe('tenant decider: usage', () => {
  it('RecordApiCalls records a count', () => {
    given()
      .when({ type: 'RecordApiCalls', data: { period: '2026-11', count: 3 } })
      .then([{ type: 'usage.api_calls_recorded', data: { period: '2026-11', count: 3 } }], null);
  });

  it('RecordApiCalls of nothing is a no-op', () => {
    given()
      .when({ type: 'RecordApiCalls', data: { period: '2026-11', count: 0 } })
      .thenNothingHappened(null);
  });
});
