import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AckPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { newId } from '../../../src/domain/ids.js';
import type { TenantCommand, TenantCommandOf } from '../../../src/domain/tenant/index.js';
import { DURABLES } from '../../../src/infra/topology.js';
import { ensureDurable } from '../../../src/ledger/ledger-consumer.js';
import { JOBS_STREAM } from '../../../src/ledger/streams.js';
import {
  ADMIN_KEY,
  assertProblem,
  type CallResult,
  startTestServer,
  type TestServer,
} from '../../support/test-server.js';

/**
 * The read endpoints the console needs beyond the spec (docs/api.md, Console endpoints), against a real nats-server and
 * Postgres: each one's answer from real events, tenant isolation, and the spec's error body for bad input.
 */

const A = 'console-a';
const B = 'console-b';
/** A tenant id the API would refuse, appended to the log directly: the CSV must still escape it. */
const ODD = 'odd,"tenant"';
const TRICKY_ERROR = 'timeout, "slow" page\nsecond line';
const by = { correlationId: 'console-test', causedBy: { kind: 'admin' as const } };
const today = () => new Date().toISOString().slice(0, 10);
const period = () => new Date().toISOString().slice(0, 7);

describe('console endpoints', () => {
  let s: TestServer;
  let nextAddress = 20;
  const keys: Record<string, string> = {};
  let webhookA: string;
  const deliveryIds: string[] = [];

  const admin = (path: string, opts: Parameters<TestServer['call']>[2] = {}) =>
    s.call('GET', path, { token: ADMIN_KEY, from: `127.0.0.${nextAddress++}`, ...opts });
  const as = (key: string, path: string) => s.call('GET', path, { token: keys[key]! });
  const run = (tenantId: string, command: TenantCommand) => s.server.ctx.tenants.execute(tenantId, command, by);

  async function createKey(name: string, tenantId: string, scopes: string[]) {
    const r = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      from: `127.0.0.${nextAddress++}`,
      body: { tenantId, scopes, name },
    });
    assert.equal(r.status, 201, r.text);
    keys[name] = r.body.key;
  }

  /** Submits a capture; completes it `latencyMs` after its submission, or fails it. */
  async function capture(
    tenantId: string,
    outcome: { latencyMs: number; bytes: number } | { error: string; reason?: 'target_timeout' },
  ) {
    const captureId = newId('cap');
    await run(tenantId, {
      type: 'SubmitCaptures',
      data: { captures: [{ captureId, url: 'https://example.org/page' }], source: 'single' },
    });
    if ('error' in outcome) {
      await run(tenantId, {
        type: 'FailCapture',
        data: {
          captureId,
          error: outcome.error,
          retryable: true,
          attempts: 3,
          ...(outcome.reason ? { failureReason: outcome.reason } : {}),
        },
      });
      return;
    }
    await s.server.ctx.waiter.waitFor(await s.server.store!.lastSeq());
    const row = await s.server.ctx.pool.query<{ created_at: Date }>(
      'SELECT created_at FROM captures WHERE capture_id = $1',
      [captureId],
    );
    await run(tenantId, {
      type: 'CompleteCapture',
      data: {
        captureId,
        completedAt: new Date(row.rows[0]!.created_at.getTime() + outcome.latencyMs).toISOString(),
        renderQuality: 'full',
        render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 },
        artifacts: { screenshot: 's', html: 'h' },
        storedBytes: outcome.bytes,
        attempts: 1,
      },
    });
  }

  before(async () => {
    s = await startTestServer();
    await createKey('a', A, ['capture', 'read']);
    await createKey('aRead', A, ['read']);
    await createKey('aAdminScope', A, ['admin']);
    await createKey('b', B, ['capture', 'read']);

    await capture(A, { latencyMs: 1000, bytes: 100 });
    await capture(A, { latencyMs: 3000, bytes: 250 });
    await capture(A, { error: TRICKY_ERROR, reason: 'target_timeout' });
    await capture(A, { error: 'DNS lookup failed' });
    await capture(B, { latencyMs: 500, bytes: 7 });
    await capture(ODD, { latencyMs: 10, bytes: 1 });

    webhookA = newId('whk');
    // A secret in the clear, as webhooks registered before sealing have it: no secret store needed here.
    await run(A, {
      type: 'RegisterWebhook',
      data: {
        webhookId: webhookA,
        url: 'https://hooks.example.org/a',
        events: ['capture.complete'],
        name: 'hook',
        secret: 'whsec_test',
      } as unknown as TenantCommandOf<'RegisterWebhook'>['data'],
    });
    for (const attempt of [1, 2]) {
      deliveryIds.push(newId('dlv'));
      await run(A, {
        type: 'RecordDeliveryAttempt',
        data: {
          deliveryId: deliveryIds[0]!,
          webhookId: webhookA,
          eventId: newId('evt'),
          eventType: 'capture.complete',
          attempt,
          outcome: attempt === 1 ? 'failed' : 'delivered',
          httpStatus: attempt === 1 ? 500 : 200,
          latencyMs: 12,
        },
      });
    }
    await run(A, {
      type: 'DeadLetterDelivery',
      data: {
        deliveryId: newId('dlv'),
        webhookId: webhookA,
        eventId: newId('evt'),
        eventType: 'capture.complete',
        attempts: 4,
        reason: 'HTTP 500',
      },
    });
    await s.server.ctx.waiter.waitFor(await s.server.store!.lastSeq());
  });
  after(async () => s?.stop());

  const problemNaming = (r: CallResult, status: number, field: RegExp) => {
    assert.equal(r.status, status, r.text);
    assertProblem(r.body, status);
    assert.match(r.body.detail, field);
  };

  describe('GET /v1/schedules/preview', () => {
    it('gives the next five runs in UTC, and create plans the first of them', async () => {
      const r = await as('a', `/v1/schedules/preview?cron=${encodeURIComponent(' 0 6 * * 1 ')}`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.cron, '0 6 * * 1');
      assert.equal(r.body.nextRuns.length, 5);
      let previous = Date.now();
      for (const run of r.body.nextRuns) {
        const at = new Date(run);
        assert.match(run, /^\d{4}-\d{2}-\d{2}T06:00:00\.000Z$/);
        assert.equal(at.getUTCDay(), 1);
        assert.ok(at.getTime() > previous);
        previous = at.getTime();
      }
      const created = await s.call('POST', '/v1/schedules', {
        token: keys.a!,
        body: { url: 'https://93.184.215.14/', name: 'weekly', cron: '0 6 * * 1' },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.nextRunAt, r.body.nextRuns[0]);
      assert.equal((await s.call('DELETE', `/v1/schedules/${created.body.id}`, { token: keys.a! })).status, 200);
    });

    it('answers every expression as creating a schedule does: the same 400 and detail, or 200 where it is accepted', async () => {
      const expressions = [
        '*/30 * * * *',
        '0,30 * * * *',
        '* * * * *',
        '0 6 * *',
        '',
        '61 * * * *',
        '0 0 30 2 *',
        '@hourly',
        '@every',
      ];
      for (const cron of expressions) {
        const preview = await as('a', `/v1/schedules/preview?cron=${encodeURIComponent(cron)}`);
        const create = await s.call('POST', '/v1/schedules', {
          token: keys.a!,
          body: { url: 'https://93.184.215.14/', name: 'verdict', cron },
        });
        if (create.status === 201) {
          assert.equal(preview.status, 200, `${cron}: ${preview.text}`);
          await s.call('DELETE', `/v1/schedules/${create.body.id}`, { token: keys.a! });
          continue;
        }
        assert.equal(create.status, 400, `${cron}: ${create.text}`);
        problemNaming(preview, 400, /cron/);
        assert.equal(preview.body.detail, create.body.detail, cron);
      }
      const hourly = await as('a', '/v1/schedules/preview?cron=*/30%20*%20*%20*%20*');
      assert.match(hourly.body.detail, /more than once per hour/);
    });

    it('refuses a missing cron (400), no key (401)', async () => {
      problemNaming(await as('a', '/v1/schedules/preview'), 400, /querystring\.cron: is required/);
      problemNaming(await s.call('GET', '/v1/schedules/preview?cron=0%206%20*%20*%201'), 401, /./);
    });
  });

  describe('GET /v1/webhooks/{webhookId}/deliveries', () => {
    it("answers the tenant's own webhook as the operators' route does: attempts and dead letters", async () => {
      const r = await as('a', `/v1/webhooks/${webhookA}/deliveries`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.webhookId, webhookA);
      assert.equal(r.body.tenantId, A);
      assert.deepEqual(
        r.body.data.map((d: { attempt: number; outcome: string; httpStatus: number }) => [
          d.attempt,
          d.outcome,
          d.httpStatus,
        ]),
        [
          [2, 'delivered', 200],
          [1, 'failed', 500],
        ],
      );
      assert.equal(r.body.deadLetters.length, 1);
      assert.equal(r.body.deadLetters[0].reason, 'HTTP 500');
      assert.equal(r.body.deadLetters[0].attempts, 4);
      const operators = await admin(`/v1/admin/webhooks/${webhookA}/deliveries`);
      assert.deepEqual(r.body, operators.body);
      const one = await as('a', `/v1/webhooks/${webhookA}/deliveries?limit=1`);
      assert.equal(one.body.data.length, 1);
    });

    it("never shows another tenant's webhook: 404 as for an unknown one", async () => {
      problemNaming(await as('b', `/v1/webhooks/${webhookA}/deliveries`), 404, new RegExp(webhookA));
      problemNaming(await as('a', `/v1/webhooks/whk_${'0'.repeat(32)}/deliveries`), 404, /No webhook/);
      problemNaming(await as('a', '/v1/webhooks/nonsense/deliveries'), 404, /No webhook/);
    });

    it('refuses a bad limit (400), no key (401), a key without scope capture (403)', async () => {
      problemNaming(await as('a', `/v1/webhooks/${webhookA}/deliveries?limit=0`), 400, /limit/);
      problemNaming(await s.call('GET', `/v1/webhooks/${webhookA}/deliveries`), 401, /./);
      problemNaming(await as('aRead', `/v1/webhooks/${webhookA}/deliveries`), 403, /capture/);
    });
  });

  describe('GET /v1/account/usage/daily', () => {
    it("gives every day of this month up to today, with the day's completed, failed and bytes", async () => {
      const r = await as('a', '/v1/account/usage/daily');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.tenantId, A);
      assert.equal(r.body.period, period());
      const days = r.body.days as Array<{ date: string; captures: number; failed: number; storageBytes: number }>;
      assert.equal(days.length, Number(today().slice(8)));
      assert.equal(days[0]!.date, `${period()}-01`);
      assert.deepEqual(days.at(-1), { date: today(), captures: 2, failed: 2, storageBytes: 350 });
      for (const d of days.slice(0, -1)) assert.deepEqual([d.captures, d.failed, d.storageBytes], [0, 0, 0]);
      const explicit = await as('a', `/v1/account/usage/daily?period=${period()}`);
      assert.deepEqual(explicit.body, r.body);
    });

    it('shows each tenant only its own usage', async () => {
      const r = await as('b', '/v1/account/usage/daily');
      assert.equal(r.body.tenantId, B);
      assert.deepEqual(r.body.days.at(-1), { date: today(), captures: 1, failed: 0, storageBytes: 7 });
    });

    it('gives a past month whole, a future one empty', async () => {
      const past = await as('a', '/v1/account/usage/daily?period=2024-02');
      assert.equal(past.status, 200);
      assert.equal(past.body.days.length, 29);
      assert.equal(past.body.days[28].date, '2024-02-29');
      const future = await as('a', '/v1/account/usage/daily?period=2999-01');
      assert.deepEqual(future.body.days, []);
    });

    it('refuses a bad period (400), no key (401), a key without scope read (403)', async () => {
      problemNaming(await as('a', '/v1/account/usage/daily?period=2024-13'), 400, /querystring\.period/);
      problemNaming(await s.call('GET', '/v1/account/usage/daily'), 401, /./);
      problemNaming(await as('aAdminScope', '/v1/account/usage/daily'), 403, /read/);
    });
  });

  describe('GET /v1/admin/tenants and /v1/admin/tenants/{tenantId}/config', () => {
    it('lists every tenant in id order, a page at a time, with quotas in effect, overrides and usage', async () => {
      const set = await s.call('PUT', `/v1/admin/tenants/${A}/config`, {
        token: ADMIN_KEY,
        from: `127.0.0.${nextAddress++}`,
        body: { quotas: { capturesPerMonth: 42 } },
      });
      assert.equal(set.status, 200, set.text);
      const seen: any[] = [];
      let cursor: string | null = null;
      do {
        const r = await admin(`/v1/admin/tenants?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        assert.equal(r.status, 200, r.text);
        assert.ok(r.body.data.length <= 1);
        seen.push(...r.body.data);
        cursor = r.body.nextCursor;
      } while (cursor);
      const ids = seen.map((t) => t.tenantId);
      assert.deepEqual(ids, [...ids].sort());
      assert.ok(ids.includes(A) && ids.includes(B));
      const a = seen.find((t) => t.tenantId === A);
      assert.deepEqual(a, {
        tenantId: A,
        tier: 'starter',
        quotas: { capturesPerMonth: 42, storageBytes: 1_000_000_000 },
        overrides: { capturesPerMonth: 42, storageBytes: null },
        usage: { period: period(), captureCount: 2, storageBytes: 350, apiCallCount: a.usage.apiCallCount },
      });
      // The whole list, read after the pages, says the same, but for API calls: the usage recorder's periodic
      // flush may have counted more of them since (never fewer).
      const whole = await admin('/v1/admin/tenants');
      const callsApart = (ts: any[]) =>
        ts.map(({ usage: { apiCallCount, ...usage }, ...t }) => [{ ...t, usage }, apiCallCount as number] as const);
      const [wholeApart, seenApart] = [callsApart(whole.body.data), callsApart(seen)];
      assert.deepEqual(
        wholeApart.map(([t]) => t),
        seenApart.map(([t]) => t),
      );
      for (const [i, [t, calls]] of wholeApart.entries())
        assert.ok(calls >= seenApart[i]![1], `${t.tenantId}: ${calls} API calls`);
      assert.equal(whole.body.nextCursor, null);
    });

    it("reads a tenant's config back, 404 for an unknown tenant", async () => {
      const r = await admin(`/v1/admin/tenants/${A}/config`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.tenantId, A);
      assert.deepEqual(r.body.config.quotas, { capturesPerMonth: 42, storageBytes: 1_000_000_000 });
      problemNaming(await admin('/v1/admin/tenants/nobody-here/config'), 404, /nobody-here/);
    });

    it('refuses a bad limit or cursor (400), no or a tenant credential (401)', async () => {
      problemNaming(await admin('/v1/admin/tenants?limit=0'), 400, /querystring\.limit/);
      problemNaming(await admin('/v1/admin/tenants?cursor=NOT%20AN%20ID'), 400, /querystring\.cursor/);
      problemNaming(await s.call('GET', '/v1/admin/tenants', { from: `127.0.0.${nextAddress++}` }), 401, /./);
      problemNaming(await admin('/v1/admin/tenants', { token: keys.a! }), 401, /./);
    });
  });

  describe('GET /v1/admin/capacity', () => {
    it("reads the job queue's consumer: waiting, in flight, and the bounds", async () => {
      const before = await admin('/v1/admin/capacity');
      assert.equal(before.status, 200, before.text);
      assert.deepEqual(before.body, { jobBacklog: 0, inFlight: 0, backlogMax: 1000, workerConcurrency: null });

      // The workers' consumer with three jobs, one of them taken and not finished (this process runs no worker).
      const { js, jsm } = s.server.nats;
      const { name } = DURABLES.captureWorkers;
      await ensureDurable(jsm, JOBS_STREAM, name, 'jobs.capture', {
        ack_policy: AckPolicy.Explicit,
        ack_wait: nanos(120_000),
      });
      for (let i = 0; i < 3; i++) await js.publish('jobs.capture', JSON.stringify({ test: i }));
      const consumer = await js.consumers.get(JOBS_STREAM, name);
      const taken = await consumer.next({ expires: 5000 });
      assert.ok(taken);
      const r = await admin('/v1/admin/capacity');
      assert.deepEqual(r.body, { jobBacklog: 2, inFlight: 1, backlogMax: 1000, workerConcurrency: null });
      taken.ack();
    });

    it('refuses no admin credential (401)', async () => {
      problemNaming(await s.call('GET', '/v1/admin/capacity', { from: `127.0.0.${nextAddress++}` }), 401, /./);
    });
  });

  describe('GET /v1/admin/reports/{name}', () => {
    const window = () => `from=${today()}&to=${today()}`;

    it('captures-per-day: per tenant and day, from the usage views', async () => {
      const r = await admin(`/v1/admin/reports/captures-per-day?${window()}&tenant=${A}`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, {
        name: 'captures-per-day',
        from: today(),
        to: today(),
        columns: ['day', 'tenant_id', 'captures_submitted', 'captures_completed', 'captures_failed'],
        rows: [[today(), A, 4, 2, 2]],
      });
      const all = await admin(`/v1/admin/reports/captures-per-day?${window()}`);
      assert.deepEqual(
        all.body.rows.map((row: unknown[]) => row[1]),
        [A, B, ODD].sort(),
      );
    });

    it('failures-by-reason: per day, class and message', async () => {
      const r = await admin(`/v1/admin/reports/failures-by-reason?${window()}&tenant=${A}`);
      assert.deepEqual(r.body.columns, ['day', 'tenant_id', 'reason', 'error', 'retryable', 'captures']);
      assert.deepEqual(r.body.rows, [
        [today(), A, 'target_timeout', TRICKY_ERROR, true, 1],
        [today(), A, null, 'DNS lookup failed', true, 1],
      ]);
    });

    it('capture-latency: percentiles of submission to completion per day', async () => {
      const r = await admin(`/v1/admin/reports/capture-latency?${window()}&tenant=${A}`);
      assert.deepEqual(r.body.columns, ['day', 'tenant_id', 'captures', 'p50_ms', 'p90_ms', 'p99_ms', 'max_ms']);
      assert.deepEqual(r.body.rows, [[today(), A, 2, 2000, 2800, 2980, 3000]]);
    });

    it('storage-growth: bytes per day and the running total', async () => {
      const r = await admin(`/v1/admin/reports/storage-growth?tenant=${A}`);
      assert.equal(r.body.to, today());
      assert.equal(r.body.from, new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10));
      assert.deepEqual(r.body.columns, ['day', 'tenant_id', 'storage_bytes', 'cumulative_storage_bytes']);
      assert.deepEqual(r.body.rows, [[today(), A, 350, 350]]);
    });

    it('as CSV (RFC 4180): header row, fields with commas, quotes and newlines quoted, an attachment', async () => {
      const r = await admin(`/v1/admin/reports/failures-by-reason?${window()}&tenant=${A}&format=csv`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers.get('content-type'), 'text/csv; charset=utf-8');
      assert.equal(
        r.headers.get('content-disposition'),
        `attachment; filename="failures-by-reason-${today()}-${today()}.csv"`,
      );
      assert.equal(
        r.text,
        'day,tenant_id,reason,error,retryable,captures\r\n' +
          `${today()},${A},target_timeout,"timeout, ""slow"" page\nsecond line",true,1\r\n` +
          `${today()},${A},,DNS lookup failed,true,1\r\n`,
      );
      const odd = await admin(`/v1/admin/reports/captures-per-day?${window()}&format=csv`);
      assert.match(odd.text, new RegExp(`\\r\\n${today()},"odd,""tenant""",1,1,0\\r\\n`));
    });

    it('a window outside the data is empty', async () => {
      const r = await admin('/v1/admin/reports/capture-latency?from=2020-01-01&to=2020-01-31');
      assert.deepEqual(r.body.rows, []);
      const csv = await admin('/v1/admin/reports/capture-latency?from=2020-01-01&to=2020-01-31&format=csv');
      assert.equal(csv.text, 'day,tenant_id,captures,p50_ms,p90_ms,p99_ms,max_ms\r\n');
    });

    it('refuses an unknown report (404 listing them), bad input (400 naming it), no admin credential (401)', async () => {
      const unknown = await admin('/v1/admin/reports/nope');
      problemNaming(unknown, 404, /captures-per-day, failures-by-reason, capture-latency, storage-growth/);
      problemNaming(await admin('/v1/admin/reports/capture-latency?from=2024-02-30'), 400, /querystring\.from/);
      problemNaming(await admin('/v1/admin/reports/capture-latency?to=yesterday'), 400, /querystring\.to/);
      problemNaming(
        await admin('/v1/admin/reports/capture-latency?from=2024-03-02&to=2024-03-01'),
        400,
        /querystring\.from: must not be after to/,
      );
      problemNaming(
        await admin('/v1/admin/reports/capture-latency?from=2023-01-01&to=2024-03-01'),
        400,
        /querystring\.from: .*366 days/,
      );
      problemNaming(await admin('/v1/admin/reports/capture-latency?tenant=NO!'), 400, /querystring\.tenant/);
      problemNaming(await admin('/v1/admin/reports/capture-latency?format=xml'), 400, /querystring\.format/);
      problemNaming(await admin('/v1/admin/reports/capture-latency', { token: keys.a! }), 401, /./);
    });

    it('is served by the index its migration names, whatever the tables hold', async () => {
      const client = await s.server.ctx.pool.connect();
      try {
        await client.query('SET enable_seqscan = off');
        const plan = async (view: string, tenant: string | null) =>
          (
            await client.query(
              `EXPLAIN SELECT * FROM ${view} WHERE day BETWEEN $1::date AND $2::date AND ($3::text IS NULL OR tenant_id = $3)`,
              ['2024-01-01', '2024-01-31', tenant],
            )
          ).rows
            .map((row) => row['QUERY PLAN'])
            .join('\n');
        assert.match(await plan('v_usage_daily', null), /usage_daily_day/);
        assert.match(await plan('v_failures_daily', null), /captures_failed_day/);
        assert.match(await plan('v_capture_latency_daily', null), /captures_completed_day/);
        const growth = await client.query(
          "EXPLAIN SELECT * FROM v_storage_growth_daily WHERE day BETWEEN '2024-01-01' AND '2024-01-31' AND tenant_id = 'x'",
        );
        assert.match(growth.rows.map((row) => row['QUERY PLAN']).join('\n'), /usage_daily_pkey/);
      } finally {
        client.release();
      }
    });
  });
});
