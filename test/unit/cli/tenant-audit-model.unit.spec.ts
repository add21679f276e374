import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkChain,
  compareProjection,
  foldExpected,
  type ProjectionRows,
  sortDivergences,
} from '../../../src/cli/audit/tenant-audit-model.js';
import { divergenceMessage } from '../../../src/cli/commands/audit.js';
import type { TenantEvent } from '../../../src/domain/events.js';
import { type EventEnvelope, seal } from '../../../src/ledger/envelope.js';
import type { StoredEvent } from '../../../src/ledger/event-store.js';

/** Given events (sealed into a chain) … */
function chain(tenantId: string, events: TenantEvent[]): StoredEvent[] {
  let prev: string | null = null;
  return events.map((e, i) => {
    const sealed = seal(
      {
        ...structuredClone(e),
        id: `evt_${String(i).padStart(32, '0')}`,
        schemaVersion: 1,
        tenantId,
        occurredAt: `2025-03-01T10:00:${String(i).padStart(2, '0')}.000Z`,
        causedBy: { kind: 'admin' },
        correlationId: 'c',
      } as any,
      prev,
    ) as EventEnvelope;
    prev = sealed.hash;
    return { seq: 10 + i, index: 0, subject: `ledger.tenant.${tenantId}`, event: sealed };
  });
}

const K = 'a'.repeat(64);
const history: TenantEvent[] = [
  {
    type: 'key.created',
    data: { keyHash: K, scopes: ['capture', 'read'], name: 'k', createdAt: '2025-03-01T10:00:00.000Z' },
  },
  { type: 'tenant.tier_set', data: { tier: 'pro' } },
  {
    type: 'capture.submitted',
    data: {
      captures: [
        { captureId: 'cap_1', url: 'https://a/' },
        { captureId: 'cap_2', url: 'https://b/' },
      ],
      period: '2025-03',
      source: 'batch',
    },
  },
  {
    type: 'capture.completed',
    data: {
      captureId: 'cap_1',
      completedAt: '2025-03-01T10:01:00.000Z',
      renderQuality: 'full',
      render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 },
      artifacts: { screenshot: 's', html: 'h' },
      storedBytes: 100,
      attempts: 1,
    },
  },
  {
    type: 'capture.failed',
    data: { captureId: 'cap_2', failedAt: '2025-03-01T10:02:00.000Z', error: 'timeout', retryable: true, attempts: 3 },
  },
  { type: 'usage.api_calls_recorded', data: { period: '2025-03', count: 5 } },
];

/** … the rows a correct projection holds. */
function rowsFor(events: StoredEvent[]): ProjectionRows {
  return {
    tenants: {
      tier: 'pro',
      captures_override: null,
      storage_override: null,
      last_hash: events.at(-1)!.event.hash,
      last_seq: events.at(-1)!.seq,
    },
    keys: [
      {
        key_hash: K,
        scopes: ['capture', 'read'],
        name: 'k',
        created_at: new Date('2025-03-01T10:00:00Z'),
        created_by: 'admin',
        revoked_at: null,
      },
    ],
    captures: {
      captures: [
        {
          capture_id: 'cap_1',
          url: 'https://a/',
          status: 'complete',
          period: '2025-03',
          stored_bytes: 100,
          error: null,
          retryable: null,
          failure_reason: null,
        },
        {
          capture_id: 'cap_2',
          url: 'https://b/',
          status: 'failed',
          period: '2025-03',
          stored_bytes: null,
          error: 'timeout',
          retryable: true,
          failure_reason: null,
        },
      ],
      counts: [
        { status: 'pending', n: 0 },
        { status: 'complete', n: 1 },
        { status: 'failed', n: 1 },
      ],
    },
    usage: [
      {
        period: '2025-03',
        captures_submitted: 2,
        captures_completed: 1,
        captures_failed: 1,
        storage_bytes: 100,
        api_call_count: 5,
      },
    ],
    webhooks: [],
    schedules: [],
    profiles: [],
  };
}

describe('tenant audit model', () => {
  it('an intact chain and a matching projection: no divergence', () => {
    const events = chain('acme', history);
    assert.deepEqual(checkChain('acme', events), []);
    assert.deepEqual(compareProjection(foldExpected('acme', events), rowsFor(events)), []);
  });

  it('an altered payload breaks exactly one link, at that event', () => {
    const events = chain('acme', history);
    (events[2]!.event as any).data.captures[1].url = 'https://evil/';
    const found = checkChain('acme', events);
    assert.equal(found.length, 1);
    assert.deepEqual(
      [found[0]!.kind, found[0]!.ref!.seq, found[0]!.ref!.eventId, found[0]!.detail.field],
      ['hash-chain', 12, events[2]!.event.id, 'hash'],
    );
    assert.match(divergenceMessage(found[0]!), /the stored event was altered/);
  });

  it('a removed event shows as a broken prevHash at the next one; a foreign tenant is named', () => {
    const events = chain('acme', history);
    const gap = [...events.slice(0, 3), ...events.slice(4)];
    const found = checkChain('acme', gap);
    assert.deepEqual(
      found.map((d) => [d.kind, d.ref!.seq, d.detail.field]),
      [['hash-chain', 14, 'prevHash']],
    );
    const foreign = checkChain('other', events.slice(0, 1))[0]!;
    assert.equal(foreign.kind, 'foreign-event');
    assert.match(divergenceMessage(foreign), /belongs to tenant 'acme', not 'other'/);
  });

  it('a projection difference names the event that last shaped the value', () => {
    const events = chain('acme', history);
    const rows = rowsFor(events);
    rows.captures.captures[1]!.status = 'pending';
    rows.captures.counts![0]!.n = 1;
    rows.usage[0]!.api_call_count = 4;
    const found = sortDivergences(compareProjection(foldExpected('acme', events), rows));
    assert.deepEqual(
      found.map((d) => [d.ref?.seq, d.kind, d.detail.table, d.detail.field]),
      [
        [14, 'projection-mismatch', 'captures', 'status'],
        [14, 'actor-state', 'captures', 'pending'],
        [14, 'projection-mismatch', 'capture_counts', 'n'],
        [15, 'projection-mismatch', 'usage_monthly', 'api_call_count'],
      ],
    );
    assert.equal(
      divergenceMessage(found[0]!),
      'captures cap_2: status is "pending" in the projection but "failed" from the log',
    );
  });

  it('missing rows point at the creating event; extra rows at no event and sort last', () => {
    const events = chain('acme', history);
    const rows = rowsFor(events);
    rows.keys = [{ ...rows.keys[0]!, key_hash: 'b'.repeat(64) }];
    const found = sortDivergences(compareProjection(foldExpected('acme', events), rows));
    assert.deepEqual(
      found.map((d) => [d.ref?.eventId ?? null, d.kind, d.detail.table, d.detail.field]),
      [
        [events[0]!.event.id, 'projection-missing-row', 'api_keys', '(row)'],
        [null, 'projection-extra-row', 'api_keys', '(row)'],
      ],
    );
    assert.equal(
      divergenceMessage(found[1]!),
      `api_keys ${'b'.repeat(64)}: the projection has this row but no event of the tenant creates it`,
    );
  });

  it('the actor state (evolveTenant) and the read models fold the same keys and quota usage', () => {
    const events = chain('acme', [
      ...history,
      { type: 'key.revoked', data: { keyHash: K, revokedAt: '2025-03-02T00:00:00.000Z' } },
    ]);
    const x = foldExpected('acme', events);
    assert.equal(x.state.keys.get(K)!.revokedAt, '2025-03-02T00:00:00.000Z');
    assert.deepEqual(x.state.usage, { period: '2025-03', captures: 2, storageBytes: 100 });
    const found = compareProjection(x, rowsFor(events));
    assert.deepEqual(
      found.map((d) => [d.ref!.seq, d.detail.table, d.detail.field]),
      [[16, 'api_keys', 'revoked_at']],
    );
  });
});
