import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TenantEvent } from '../../../src/domain/events.js';
import { decideTenant, initialTenantState } from '../../../src/domain/tenant/index.js';
import {
  captureOutcomeEnvelope,
  deliveryIdOf,
  envelopeBody,
  pingEnvelope,
  webhookEventId,
  webhookTypeOf,
} from '../../../src/webhooks/webhook-events.js';

const BASE = 'https://ledger.example';
const CAP = 'cap_0123456789abcdef0123456789abcdef';
const row = { capture_id: CAP, url: 'https://example.org/page', created_at: new Date('2026-11-22T10:00:00.000Z') };
type Completed = Extract<TenantEvent, { type: 'capture.completed' }>['data'];
type Failed = Extract<TenantEvent, { type: 'capture.failed' }>['data'];

const completed = (over: Partial<Completed> = {}) => ({
  id: 'evt_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  occurredAt: '2026-11-22T10:00:07.000Z',
  type: 'capture.completed' as const,
  data: {
    captureId: CAP,
    completedAt: '2026-11-22T10:00:06.500Z',
    renderQuality: 'full' as const,
    render: { waitUntilReached: 'load' as const, timedOut: false, durationMs: 900 },
    artifacts: { screenshot: `${CAP}/screenshot`, html: `${CAP}/html`, headers: `${CAP}/headers`, wacz: `${CAP}/wacz` },
    bundle: { bundleHash: 'sha256:00', size: 10, version: '0.2.0', keyId: 'abcd1234' },
    storedBytes: 123,
    attempts: 1,
    ...over,
  },
});
const failed = (over: Partial<Failed> = {}) => ({
  id: 'evt_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
  occurredAt: '2026-11-22T10:01:00.000Z',
  type: 'capture.failed' as const,
  data: {
    captureId: CAP,
    failedAt: '2026-11-22T10:00:59.000Z',
    error: 'DNS lookup failed',
    retryable: false,
    attempts: 3,
    ...over,
  },
});

describe('webhook envelopes (spec 6.1-6.4)', () => {
  it('capture.complete carries exactly the spec 6.2 fields, URIs built from the public base URL', () => {
    const env = captureOutcomeEnvelope(BASE, completed(), row);
    assert.deepEqual(env, {
      id: webhookEventId('evt_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'capture.complete'),
      type: 'capture.complete',
      createdAt: '2026-11-22T10:00:07.000Z',
      data: {
        id: CAP,
        status: 'complete',
        url: 'https://example.org/page',
        createdAt: '2026-11-22T10:00:00.000Z',
        completedAt: '2026-11-22T10:00:06.500Z',
        renderQuality: 'full',
        artifacts: {
          screenshot: `${BASE}/v1/captures/${CAP}/artifacts/screenshot`,
          html: `${BASE}/v1/captures/${CAP}/artifacts/html`,
          headers: `${BASE}/v1/captures/${CAP}/artifacts/headers`,
        },
        verifyUrl: `${BASE}/v1/verify/${CAP}`,
      },
    });
  });

  it('omits verifyUrl without a bundle and headers when none were stored', () => {
    const partial = completed({ renderQuality: 'partial', artifacts: { screenshot: 's', html: 'h' } });
    delete (partial.data as Partial<Completed>).bundle;
    const env = captureOutcomeEnvelope(BASE, partial, row);
    const data = env.data as Record<string, any>;
    assert.equal(data.renderQuality, 'partial');
    assert.equal('verifyUrl' in data, false);
    assert.deepEqual(Object.keys(data.artifacts), ['screenshot', 'html']);
  });

  it('capture.failed carries the spec 6.3 fields', () => {
    const env = captureOutcomeEnvelope(BASE, failed(), row);
    assert.equal(env.type, 'capture.failed');
    assert.deepEqual(env.data, {
      id: CAP,
      status: 'failed',
      url: 'https://example.org/page',
      createdAt: '2026-11-22T10:00:00.000Z',
      failedAt: '2026-11-22T10:00:59.000Z',
      error: 'DNS lookup failed',
      retryable: false,
    });
  });

  it('derives a stable evt_ id: the same ledger event always yields the same id and body bytes', () => {
    const a = envelopeBody(captureOutcomeEnvelope(BASE, completed(), row));
    const b = envelopeBody(captureOutcomeEnvelope(BASE, completed(), row));
    assert.equal(a, b);
    const id = JSON.parse(a).id as string;
    assert.match(id, /^evt_[0-9a-f]{32}$/);
    assert.notEqual(id, 'evt_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'not the ledger id itself');
    assert.notEqual(webhookEventId('evt_x', 'capture.complete'), webhookEventId('evt_x', 'capture.failed'));
    assert.notEqual(webhookEventId('evt_x', 'capture.complete'), webhookEventId('evt_y', 'capture.complete'));
  });

  it('derives one delivery id per event and webhook', () => {
    assert.match(deliveryIdOf('evt_1', 'whk_1'), /^dlv_[0-9a-f]{32}$/);
    assert.equal(deliveryIdOf('evt_1', 'whk_1'), deliveryIdOf('evt_1', 'whk_1'));
    assert.notEqual(deliveryIdOf('evt_1', 'whk_1'), deliveryIdOf('evt_1', 'whk_2'));
  });

  it('maps only capture outcomes to webhook types', () => {
    assert.equal(webhookTypeOf('capture.completed'), 'capture.complete');
    assert.equal(webhookTypeOf('capture.failed'), 'capture.failed');
    assert.equal(webhookTypeOf('capture.submitted'), null);
    assert.equal(webhookTypeOf('webhook.delivery_attempted'), null);
  });

  it('ping is a spec 6.1 envelope of type ping', () => {
    const env = pingEnvelope('evt_cccccccccccccccccccccccccccccccc', new Date('2026-11-22T11:00:00Z'), 'whk_1');
    assert.deepEqual(Object.keys(env), ['id', 'type', 'createdAt', 'data']);
    assert.equal(env.type, 'ping');
    assert.equal(env.createdAt, '2026-11-22T11:00:00.000Z');
  });
});

describe('tenant decider: delivery records', () => {
  const attempt = {
    deliveryId: 'dlv_1',
    webhookId: 'whk_1',
    eventId: 'evt_1',
    eventType: 'capture.complete',
    attempt: 2,
    outcome: 'failed' as const,
    httpStatus: 500,
    latencyMs: 12,
  };
  it('records an attempt', () => {
    const d = decideTenant({ type: 'RecordDeliveryAttempt', data: attempt }, initialTenantState('acme'), new Date());
    assert.deepEqual(d.events, [{ type: 'webhook.delivery_attempted', data: attempt }]);
  });
  it('dead-letters a delivery', () => {
    const data = {
      deliveryId: 'dlv_1',
      webhookId: 'whk_1',
      eventId: 'evt_1',
      eventType: 'capture.complete',
      attempts: 4,
      reason: 'x',
    };
    const d = decideTenant({ type: 'DeadLetterDelivery', data }, initialTenantState('acme'), new Date());
    assert.deepEqual(d.events, [
      {
        type: 'webhook.delivery_dead_lettered',
        data: {
          deliveryId: 'dlv_1',
          webhookId: 'whk_1',
          eventId: 'evt_1',
          eventType: 'capture.complete',
          attempts: 4,
          reason: 'x',
        },
      },
    ]);
  });
});
