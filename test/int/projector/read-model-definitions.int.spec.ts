import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TenantEvent } from '../../../src/domain/events.js';
import { createPool } from '../../../src/infra/postgres.js';
import { type EventEnvelope, seal } from '../../../src/ledger/envelope.js';
import type { StoredEvent } from '../../../src/ledger/event-store.js';
import { compareProjection, foldExpected } from '../../../src/cli/audit/tenant-audit-model.js';
import { migrate } from '../../../projections/migrate.js';
import { applyEvents, readTenantReadModelRows } from '../../../projections/read-models/index.js';
import { type Infra, startInfra } from '../../support/harness.js';

/**
 * Each read model says once what an event does to its rows; the batched SQL writer and the
 * audit's fold both carry that out. A log with every rule's edge (late and duplicate outcomes in and across
 * batches, a superseded schedule run, double revocations and deletions) is written in several batchings:
 * the tables are the same whatever the batching, and the audit's fold finds nothing to report.
 */

const T = (s: number) => `2025-03-31T10:00:${String(s).padStart(2, '0')}.000Z`;
const render = { waitUntilReached: 'load' as const, timedOut: false, durationMs: 1 };
const completed = (captureId: string, storedBytes: number, at: string, finalUrl?: string): TenantEvent => ({
  type: 'capture.completed',
  data: {
    captureId,
    completedAt: at,
    renderQuality: 'full',
    render,
    artifacts: { screenshot: 's', html: 'h' },
    storedBytes,
    attempts: 1,
    ...(finalUrl ? { finalUrl } : {}),
  },
});
const run = (captureId: string, fireTime: string): TenantEvent => ({
  type: 'capture.submitted',
  data: {
    captures: [{ captureId, url: 'https://a/run' }],
    period: '2025-03',
    source: 'schedule',
    scheduleId: 'sch_1',
    fireTime,
  },
});

const LOG: TenantEvent[] = [
  { type: 'key.created', data: { keyHash: 'k'.repeat(64), scopes: ['capture', 'read'], name: 'k', createdAt: T(0) } },
  { type: 'key.revoked', data: { keyHash: 'k'.repeat(64), revokedAt: T(1) } },
  { type: 'key.revoked', data: { keyHash: 'k'.repeat(64), revokedAt: T(2) } },
  {
    type: 'webhook.registered',
    data: {
      webhookId: 'wh_1',
      url: 'https://hooks/',
      events: ['capture.complete'],
      name: 'w',
      secret: 'clear-secret',
      createdAt: T(3),
    },
  },
  { type: 'webhook.deleted', data: { webhookId: 'wh_1', deletedAt: T(4) } },
  { type: 'webhook.deleted', data: { webhookId: 'wh_1', deletedAt: T(5) } },
  {
    type: 'schedule.created',
    data: {
      scheduleId: 'sch_1',
      url: 'https://a/run',
      name: 's',
      cron: '0 * * * *',
      createdAt: T(6),
      options: { fullPage: true },
    },
  },
  {
    type: 'capture.submitted',
    data: {
      captures: [
        { captureId: 'cap_1', url: 'https://a/1' },
        { captureId: 'cap_2', url: 'https://a/2' },
      ],
      period: '2025-03',
      source: 'batch',
    },
  },
  completed('cap_1', 100, T(8), 'https://a/final'),
  {
    type: 'capture.failed',
    data: { captureId: 'cap_1', failedAt: T(9), error: 'late', retryable: false, attempts: 2 },
  },
  completed('cap_1', 999, T(10), 'https://late/'),
  {
    type: 'capture.failed',
    data: {
      captureId: 'cap_2',
      failedAt: T(11),
      error: 'timeout',
      retryable: true,
      attempts: 3,
      failureReason: 'target_timeout',
    },
  },
  run('cap_3', T(12)),
  run('cap_4', T(13)),
  completed('cap_3', 7, T(14)),
  { type: 'schedule.skipped', data: { scheduleId: 'sch_1', fireTime: T(15), reason: 'quota', detail: 'over' } },
  completed('cap_4', 8, T(16)),
  { type: 'usage.api_calls_recorded', data: { period: '2025-03', count: 25 } },
  completed('cap_unknown', 5, T(18)),
  { type: 'tenant.tier_set', data: { tier: 'pro' } },
  { type: 'schedule.deleted', data: { scheduleId: 'sch_1', deletedAt: T(20) } },
  // A browser profile: renamed, used, given a new version, deleted; a rename after the deletion changes nothing.
  {
    type: 'profile.created',
    data: {
      profileId: 'prf_cccccccccccccccccccccccccccccccc',
      name: 'Shop',
      version: 1,
      sites: ['example.org'],
      cookieCount: 2,
      originCount: 0,
      digest: 'sha256:d1',
      createdAt: T(21),
    },
  },
  {
    type: 'profile.renamed',
    data: { profileId: 'prf_cccccccccccccccccccccccccccccccc', name: 'Store', renamedAt: T(22) },
  },
  {
    type: 'profile.used',
    data: { profileId: 'prf_cccccccccccccccccccccccccccccccc', captureId: 'cap_5', version: 1, digest: 'sha256:d1' },
  },
  {
    type: 'profile.updated',
    data: {
      profileId: 'prf_cccccccccccccccccccccccccccccccc',
      version: 2,
      sites: ['example.net', 'example.org'],
      cookieCount: 3,
      originCount: 1,
      digest: 'sha256:d2',
      updatedAt: T(24),
    },
  },
  { type: 'profile.deleted', data: { profileId: 'prf_cccccccccccccccccccccccccccccccc', deletedAt: T(25) } },
  {
    type: 'profile.renamed',
    data: { profileId: 'prf_cccccccccccccccccccccccccccccccc', name: 'late', renamedAt: T(26) },
  },
];

function chain(events: TenantEvent[]): StoredEvent[] {
  let prev: string | null = null;
  return events.map((e, i) => {
    const sealed = seal(
      {
        ...e,
        id: `evt_${i}`,
        schemaVersion: 1,
        tenantId: 'acme',
        occurredAt: T(i),
        causedBy: { kind: 'admin' },
        correlationId: 'c',
      } as never,
      prev,
    ) as EventEnvelope;
    prev = sealed.hash;
    return { seq: i + 1, index: 0, subject: 'ledger.tenant.acme', event: sealed };
  });
}

const TABLES = [
  'tenants',
  'api_keys',
  'captures',
  'capture_counts',
  'usage_monthly',
  'usage_daily',
  'webhooks',
  'schedules',
  'profiles',
];

describe('read model definitions: the batched writer and the fold agree', () => {
  let infra: Infra;
  let dbUrl: string;
  const events = chain(LOG);
  const batchings: Record<string, number> = { 'one batch': events.length, 'one event per batch': 1, 'batches of 3': 3 };
  const dumps = new Map<string, Record<string, unknown[]>>();
  before(async () => {
    infra = await startInfra();
    dbUrl = await infra.freshDatabase();
  });
  after(async () => {
    await infra.stop();
  });

  for (const [name, size] of Object.entries(batchings)) {
    it(`${name}: the audit's fold finds the rows the writer wrote`, async () => {
      const schema = name.replace(/\W/g, '_');
      const pool = createPool(dbUrl, schema, 2);
      try {
        await migrate(pool, schema);
        for (let i = 0; i < events.length; i += size) {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            await applyEvents(client, events.slice(i, i + size));
            await client.query('COMMIT');
          } finally {
            client.release();
          }
        }
        assert.deepEqual(
          compareProjection(foldExpected('acme', events), await readTenantReadModelRows(pool, 'acme')),
          [],
        );

        // The rules themselves, as the writer applied them.
        const cap = async (id: string) =>
          (
            await pool.query(
              'SELECT status, stored_bytes, final_url, error, failure_reason FROM captures WHERE capture_id = $1',
              [id],
            )
          ).rows[0];
        assert.deepEqual(await cap('cap_1'), {
          status: 'complete',
          stored_bytes: 100,
          final_url: 'https://a/final',
          error: null,
          failure_reason: null,
        });
        assert.deepEqual(await cap('cap_2'), {
          status: 'failed',
          stored_bytes: null,
          final_url: null,
          error: 'timeout',
          failure_reason: 'target_timeout',
        });
        const usage = (
          await pool.query(
            'SELECT captures_submitted, captures_completed, captures_failed, storage_bytes, api_call_count FROM usage_monthly',
          )
        ).rows;
        assert.deepEqual(usage, [
          { captures_submitted: 4, captures_completed: 3, captures_failed: 1, storage_bytes: 115, api_call_count: 25 },
        ]);
        const schedule = (
          await pool.query(
            'SELECT last_capture_id, last_capture_status, deleted_at IS NOT NULL AS deleted, options FROM schedules',
          )
        ).rows;
        assert.deepEqual(schedule, [
          { last_capture_id: null, last_capture_status: 'skipped_quota', deleted: true, options: { fullPage: true } },
        ]);
        const key = (await pool.query('SELECT revoked_at FROM api_keys')).rows[0];
        assert.equal(key.revoked_at.toISOString(), T(1));
        const hook = (await pool.query('SELECT deleted_at, deleted_seq, secret FROM webhooks')).rows[0];
        assert.deepEqual([hook.deleted_at.toISOString(), Number(hook.deleted_seq), hook.secret], [T(4), 5, null]);

        // A count that nets to zero within a batch writes no row: no row reads as zero (the audit's `absent`).
        const dump: Record<string, unknown[]> = {};
        for (const t of TABLES)
          dump[t] = (
            await pool.query(`SELECT * FROM ${t} ${t === 'capture_counts' ? 'WHERE n <> 0' : ''} ORDER BY 1, 2`)
          ).rows;
        dumps.set(name, dump);
      } finally {
        await pool.end();
      }
    });
  }

  it('the tables are the same whatever the batching', () => {
    const [first, ...rest] = [...dumps.values()];
    assert.equal(dumps.size, Object.keys(batchings).length);
    for (const d of rest) assert.deepEqual(d, first);
  });
});
