import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TenantEvent } from '../../../src/domain/events.js';
import { type EventEnvelope, seal } from '../../../src/ledger/envelope.js';
import type { StoredEvent } from '../../../src/ledger/event-store.js';
import { foldTenantReadModels } from '../../../projections/read-models/index.js';
import { compareTable } from '../../../src/cli/audit/tenant-audit-model.js';
import { compareCaptureCounts } from '../../../projections/read-models/captures.js';

/** Given events (sealed into a chain, one per commit) … */
function chain(events: Array<TenantEvent & { at?: string }>): StoredEvent[] {
  let prev: string | null = null;
  return events.map(({ at, ...e }, i) => {
    const occurredAt = at ?? `2025-03-31T23:59:${String(i).padStart(2, '0')}.000Z`;
    const sealed = seal(
      {
        ...e,
        id: `evt_${i}`,
        schemaVersion: 1,
        tenantId: 'acme',
        occurredAt,
        causedBy: { kind: 'admin' },
        correlationId: 'c',
      } as never,
      prev,
    ) as EventEnvelope;
    prev = sealed.hash;
    return { seq: i + 1, index: 0, subject: 'ledger.tenant.acme', event: sealed };
  });
}

const completed = (captureId: string, storedBytes: number, at = '2025-04-01T00:00:10.000Z'): TenantEvent => ({
  type: 'capture.completed',
  data: {
    captureId,
    completedAt: at,
    renderQuality: 'full',
    render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 },
    artifacts: { screenshot: 's', html: 'h' },
    storedBytes,
    attempts: 1,
  },
});

describe('read model folds', () => {
  it('the first outcome of a pending capture counts, in the month it was submitted in', () => {
    const f = foldTenantReadModels(
      chain([
        {
          type: 'capture.submitted',
          data: { captures: [{ captureId: 'cap_1', url: 'https://a/' }], period: '2025-03', source: 'single' },
        },
        completed('cap_1', 100),
        {
          type: 'capture.failed',
          data: {
            captureId: 'cap_1',
            failedAt: '2025-04-01T00:00:20.000Z',
            error: 'late',
            retryable: false,
            attempts: 2,
          },
        },
        completed('cap_unknown', 5),
      ]),
    );
    assert.equal(f.captures.captures.get('cap_1')!.value.status, 'complete');
    assert.equal(f.captures.captures.get('cap_1')!.ref.seq, 2);
    const { captures_submitted, captures_completed, captures_failed, storage_bytes, api_call_count } =
      f.usage.usage.get('2025-03')!.value;
    assert.deepEqual(
      { captures_submitted, captures_completed, captures_failed, storage_bytes, api_call_count },
      { captures_submitted: 1, captures_completed: 1, captures_failed: 0, storage_bytes: 100, api_call_count: 0 },
    );
    assert.equal(f.usage.usage.has('2025-04'), false);
  });

  it("a run's outcome sets its schedule's status only while it is the schedule's last run", () => {
    const run = (captureId: string, fireTime: string): TenantEvent => ({
      type: 'capture.submitted',
      data: {
        captures: [{ captureId, url: 'https://a/' }],
        period: '2025-03',
        source: 'schedule',
        scheduleId: 'sch_1',
        fireTime,
      },
    });
    const f = foldTenantReadModels(
      chain([
        {
          type: 'schedule.created',
          data: {
            scheduleId: 'sch_1',
            url: 'https://a/',
            name: 's',
            cron: '0 * * * *',
            createdAt: '2025-03-01T00:00:00.000Z',
          },
        },
        run('cap_1', '2025-03-01T01:00:00.000Z'),
        run('cap_2', '2025-03-01T02:00:00.000Z'),
        completed('cap_1', 1),
      ]),
    );
    const { url, name, cron, deleted_at, last_run_at, last_capture_id, last_capture_status } =
      f.schedules.schedules.get('sch_1')!.value;
    assert.deepEqual(
      { url, name, cron, deleted_at, last_run_at, last_capture_id, last_capture_status },
      {
        url: 'https://a/',
        name: 's',
        cron: '0 * * * *',
        deleted_at: null,
        last_run_at: '2025-03-01T02:00:00.000Z',
        last_capture_id: 'cap_2',
        last_capture_status: 'pending',
      },
    );
  });

  it('capture_counts: a missing row reads as zero, an unexplained non-zero row is a mismatch', () => {
    const f = foldTenantReadModels(
      chain([
        {
          type: 'capture.submitted',
          data: { captures: [{ captureId: 'cap_1', url: 'https://a/' }], period: '2025-03', source: 'single' },
        },
      ]),
    );
    assert.deepEqual(compareTable(compareCaptureCounts(f.captures, [{ status: 'pending', n: 1 }])), []);
    const found = compareTable(
      compareCaptureCounts(f.captures, [
        { status: 'pending', n: 1 },
        { status: 'failed', n: 2 },
      ]),
    );
    assert.deepEqual(
      found.map((d) => [d.kind, d.ref, d.detail.key, d.detail.projection, d.detail.log]),
      [['projection-mismatch', null, 'failed', 2, 0]],
    );
  });
});
