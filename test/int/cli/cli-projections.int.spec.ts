import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import pino from 'pino';
import { rebuildProjection } from '../../../src/projector/projection-rebuild.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../support/test-server.js';
import { cli, writeTenantHistory } from './cli-fixtures.js';

/** Every projection table of a schema (not the migration log), rows sorted, as JSON. */
async function dumpSchema(pool: pg.Pool, schema: string): Promise<Record<string, string[]>> {
  const tables = await pool.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations' ORDER BY 1`,
    [schema],
  );
  const out: Record<string, string[]> = {};
  for (const { table_name } of tables.rows) {
    const rows = await pool.query<{ r: unknown }>(`SELECT to_jsonb(t) AS r FROM "${schema}"."${table_name}" t`);
    out[table_name] = rows.rows.map((x) => JSON.stringify(x.r)).sort();
  }
  return out;
}

const schemasLike = async (pool: pg.Pool, prefix: string) =>
  (
    await pool.query<{ nspname: string }>('SELECT nspname FROM pg_namespace WHERE nspname LIKE $1 ORDER BY 1', [
      `${prefix}%`,
    ])
  ).rows.map((r) => r.nspname);

describe('capture-ledger projections status / rebuild', () => {
  let s: TestServer;
  let env: Record<string, string>;
  const quiesce = async () => {
    const last = await s.server.store!.lastSeq();
    assert.ok(await s.server.ctx.waiter.waitFor(last, 10_000), 'the live projector caught up');
  };
  before(async () => {
    s = await startTestServer();
    env = { NATS_URL: s.infra.nats.url, DATABASE_URL: s.databaseUrl };
    for (const t of ['p1', 'p2', 'p3']) await writeTenantHistory(s.server.ctx.tenants, t, 20);
    await quiesce();
  });
  after(async () => s.stop());

  it('status shows the live checkpoint, the stream end and the lag', async () => {
    const r = await cli(['projections', 'status', '--format', 'json'], env);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    const live = doc.projections.find((p: any) => p.role === 'live');
    assert.equal(live.schema, 'projection');
    assert.equal(live.checkpoint, doc.streamLastSeq);
    assert.deepEqual([live.lagCommits, live.lagEvents], [0, 0]);

    const table = await cli(['projections', 'status'], env);
    assert.match(
      table.stdout,
      /^schema\s+role\s+projector\s+checkpoint\s+stream_last_seq\s+lag_commits\s+lag_events\n/,
    );
    assert.match(table.stdout, /projection\s+live\s+main\s+\d+\s+\d+\s+0\s+0/);
    assert.equal((await cli(['projections', 'status', '--max-lag', '0'], env)).code, 0);
  });

  it('a rebuild swaps in a schema equal to the live one and keeps the old one', async () => {
    const before = await dumpSchema(s.server.ctx.pool, 'projection');
    const r = await cli(['projections', 'rebuild'], env);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.equal(result.switched, true);
    assert.match(result.oldSchema, /^projection_old_\d{8}t\d{9}z$/);
    assert.match(r.stderr, /replay \[#+\] 100\.0% \d+\/\d+ seq \d+\/s ETA 0s/);
    assert.match(r.stderr, /DROP SCHEMA projection_old_/);
    assert.ok(result.replayedEvents > 150);

    assert.deepEqual(
      await dumpSchema(s.server.ctx.pool, 'projection'),
      before,
      'the rebuilt live schema equals the one it replaced',
    );
    assert.deepEqual(await dumpSchema(s.server.ctx.pool, result.oldSchema), before, 'the old schema is kept as it was');
    assert.deepEqual(await schemasLike(s.server.ctx.pool, 'projection_rebuild_'), [], 'nothing left behind');
  });

  it('a rebuild while events are appended and the live projector runs loses and duplicates nothing', async () => {
    const tenants = s.server.ctx.tenants;
    let appending = true;
    let appended = 0;
    const writer = (async () => {
      while (appending) {
        const tenant = `w${appended % 4}`;
        await tenants.execute(
          tenant,
          { type: 'RecordApiCalls', data: { period: '2030-01', count: 1 } },
          { correlationId: 'w', causedBy: { kind: 'admin' } },
        );
        appended++;
        await new Promise((r) => setTimeout(r, 3)); // a steady few hundred appends per second
      }
    })();
    const history = writeTenantHistory(tenants, 'p4', 30);
    const r = await cli(['projections', 'rebuild', '--batch-size', '25'], env);
    appending = false;
    await writer;
    await history;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(appended > 0);
    await quiesce();

    // The live projector kept going in the new schema: every appended call is counted exactly once.
    const counted = await s.server.ctx.pool.query<{ n: number }>(
      `SELECT COALESCE(sum(api_call_count), 0)::int AS n FROM usage_monthly WHERE period = '2030-01' AND tenant_id LIKE 'w%'`,
    );
    assert.equal(counted.rows[0]!.n, appended);

    // And it equals a projection built from scratch now.
    const reference = await cli(['projections', 'rebuild', '--no-switch'], env);
    assert.equal(reference.code, 0, reference.stderr);
    const built = JSON.parse(reference.stdout).builtSchema;
    assert.deepEqual(await dumpSchema(s.server.ctx.pool, 'projection'), await dumpSchema(s.server.ctx.pool, built));
    await s.server.ctx.pool.query(`DROP SCHEMA "${built}" CASCADE`);

    // The API reads and writes through the new schema.
    const key = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      from: '127.0.0.40',
      body: { tenantId: 'p1', scopes: ['read'], name: 'after rebuild' },
    });
    assert.equal(key.status, 201);
    assert.equal((await s.call('GET', '/v1/captures', { token: key.body.key })).status, 200);
    const status = JSON.parse((await cli(['projections', 'status', '--format', 'json'], env)).stdout);
    const roles = status.projections.map((p: any) => p.role).sort();
    assert.deepEqual(roles, ['live', 'old', 'old']);
  });

  it('events the live projector applied during the rebuild are applied to the new schema inside the switch', async () => {
    const tenants = s.server.ctx.tenants;
    const { js } = s.server.nats;
    // Nothing but this test may append from here on: the usage recorder records the API calls of the tests
    // before now and stops its periodic flush, or a flush after the switch reaches the new schema and not the
    // old one compared below.
    await s.server.usage!.stop();
    await quiesce();
    const result = await rebuildProjection({
      js,
      store: s.server.store!,
      databaseUrl: s.databaseUrl,
      log: pino({ level: 'silent' }),
      beforeSwitch: async () => {
        // The live schema moves ahead of the rebuilt one right before the swap.
        for (let i = 0; i < 20; i++) {
          await tenants.execute(
            'late',
            { type: 'RecordApiCalls', data: { period: '2030-02', count: 1 } },
            { correlationId: 'l', causedBy: { kind: 'admin' } },
          );
        }
        await quiesce();
      },
    });
    assert.equal(result.appliedInSwitch, 20, 'the 20 late events, and nothing else, were applied in the switch');
    assert.equal(result.checkpoint, await s.server.store!.lastSeq());
    const late = await s.server.ctx.pool.query<{ n: number }>(
      `SELECT api_call_count AS n FROM usage_monthly WHERE tenant_id = 'late'`,
    );
    assert.equal(late.rows[0]!.n, 20);
    assert.deepEqual(
      await dumpSchema(s.server.ctx.pool, 'projection'),
      await dumpSchema(s.server.ctx.pool, result.oldSchema!),
    );
  });

  it('help and bad options', async () => {
    const help = await cli(['projections', 'rebuild', '--help'], env);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /search_path/);
    assert.equal((await cli(['projections', 'rebuild', '--batch-size', '0'], env)).code, 2);
    assert.equal((await cli(['projections', 'status', '--format', 'csv'], env)).code, 2);
  });
});
