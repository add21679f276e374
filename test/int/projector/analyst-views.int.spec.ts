import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { projectRoot } from '../../../src/infra/project-root.js';
import { startTestServer, type TestServer } from '../../support/test-server.js';
import { writeTenantHistory } from '../cli/cli-fixtures.js';

/** The documented interface of docs/analysts.md: view names, column names and order, and what they count. */
const COLUMNS: Record<string, string[]> = {
  v_usage_daily: [
    'tenant_id',
    'day',
    'captures_submitted',
    'captures_completed',
    'captures_failed',
    'storage_bytes',
    'api_calls',
  ],
  v_usage_monthly: [
    'tenant_id',
    'period',
    'captures_submitted',
    'captures_completed',
    'captures_failed',
    'storage_bytes',
    'api_calls',
  ],
  v_captures_by_status: ['tenant_id', 'period', 'status', 'render_quality', 'captures'],
  v_failure_reasons: ['tenant_id', 'period', 'error', 'retryable', 'captures'],
  v_webhook_delivery_outcomes: ['tenant_id', 'webhook_id', 'day', 'delivered', 'failed_attempts', 'dead_lettered'],
  v_failures_daily: ['tenant_id', 'day', 'reason', 'error', 'retryable', 'captures'],
  v_capture_latency_daily: ['tenant_id', 'day', 'captures', 'p50_ms', 'p90_ms', 'p99_ms', 'max_ms'],
  v_storage_growth_daily: ['tenant_id', 'day', 'storage_bytes', 'cumulative_storage_bytes'],
};

describe('analyst views', () => {
  let s: TestServer;
  const period = new Date().toISOString().slice(0, 7);
  const today = new Date().toISOString().slice(0, 10);
  before(async () => {
    s = await startTestServer();
    await writeTenantHistory(s.server.ctx.tenants, 'acme', 12);
    await s.server.ctx.waiter.waitFor(await s.server.store!.lastSeq());
  });
  after(async () => s.stop());

  it('exist with the documented columns, in order', async () => {
    for (const [view, columns] of Object.entries(COLUMNS)) {
      const r = await s.server.ctx.pool.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = 'projection' AND table_name = $1 ORDER BY ordinal_position`,
        [view],
      );
      assert.deepEqual(
        r.rows.map((c) => c.column_name),
        columns,
        view,
      );
    }
  });

  it('count what the tables hold', async () => {
    const q = async (sql: string) => (await s.server.ctx.pool.query(sql)).rows;
    assert.deepEqual(
      await q(
        `SELECT day::text, captures_submitted, captures_completed, captures_failed, storage_bytes, api_calls FROM v_usage_daily WHERE tenant_id = 'acme'`,
      ),
      [
        {
          day: today,
          captures_submitted: 13,
          captures_completed: 5,
          captures_failed: 4,
          storage_bytes: 1001 + 1004 + 1007 + 1010 + 5,
          api_calls: 17,
        },
      ],
    );
    assert.deepEqual(await q(`SELECT period, captures_submitted, api_calls FROM v_usage_monthly`), [
      { period, captures_submitted: 13, api_calls: 17 },
    ]);
    assert.deepEqual(
      await q(
        `SELECT status, render_quality, captures FROM v_captures_by_status WHERE tenant_id = 'acme' ORDER BY status, render_quality`,
      ),
      [
        { status: 'complete', render_quality: 'full', captures: 3 },
        { status: 'complete', render_quality: 'partial', captures: 2 },
        { status: 'failed', render_quality: null, captures: 4 },
        { status: 'pending', render_quality: null, captures: 4 },
      ],
    );
    assert.deepEqual(await q(`SELECT error, retryable, captures FROM v_failure_reasons ORDER BY error`), [
      { error: 'DNS lookup failed', retryable: false, captures: 2 },
      { error: 'timeout, after 30 s', retryable: true, captures: 2 },
    ]);
    const hooks = await q(
      `SELECT day::text, delivered, failed_attempts, dead_lettered FROM v_webhook_delivery_outcomes WHERE tenant_id = 'acme'`,
    );
    assert.deepEqual(hooks, [{ day: today, delivered: 1, failed_attempts: 1, dead_lettered: 1 }]);
  });

  it('the example queries of docs/analysts.md run', async () => {
    const doc = await readFile(join(projectRoot, 'docs', 'analysts.md'), 'utf8');
    const block = /```sql\nSET search_path TO projection;\n([\s\S]*?)```/.exec(doc)![1]!;
    const queries = block
      .split(/;\s*\n/)
      .map((x) => x.trim())
      .filter((x) => x && !/^--[^\n]*$/.test(x));
    assert.ok(queries.length >= 5);
    for (const sql of queries) await s.server.ctx.pool.query(sql);
  });
});
