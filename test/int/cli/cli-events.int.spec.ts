import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeRunFile } from '../../../src/infra/run-file.js';
import { startTestServer, type TestServer } from '../../support/test-server.js';
import { cli, jsonLines, writeTenantHistory } from './cli-fixtures.js';

describe('capture-ledger events list / tail', () => {
  let s: TestServer;
  let env: Record<string, string>;
  before(async () => {
    s = await startTestServer();
    env = { NATS_URL: s.infra.nats.url, DATABASE_URL: s.databaseUrl };
    await writeTenantHistory(s.server.ctx.tenants, 'alpha', 4);
    await writeTenantHistory(s.server.ctx.tenants, 'beta', 2);
  });
  after(async () => s.stop());

  it('lists every event of the log in order, as JSON lines with the stored envelope', async () => {
    const r = await cli(['events', 'list'], env);
    assert.equal(r.code, 0, r.stderr);
    const lines = jsonLines(r.stdout);
    assert.ok(lines.length > 40);
    for (let i = 1; i < lines.length; i++) {
      assert.ok(
        lines[i].seq > lines[i - 1].seq || (lines[i].seq === lines[i - 1].seq && lines[i].index > lines[i - 1].index),
      );
    }
    assert.match(lines[0].event.id, /^evt_/);
    assert.equal(typeof lines[0].event.hash, 'string');
    assert.deepEqual(new Set(lines.map((l) => l.event.tenantId)), new Set(['alpha', 'beta']));
  });

  it('filters by tenant (reading only its subject), type, type prefix and time', async () => {
    const alpha = jsonLines((await cli(['events', 'list', '--tenant', 'alpha'], env)).stdout);
    assert.ok(
      alpha.length > 20 && alpha.every((l) => l.event.tenantId === 'alpha' && l.subject === 'ledger.tenant.alpha'),
    );

    const failed = jsonLines(
      (await cli(['events', 'list', '--tenant', 'beta', '--type', 'capture.failed'], env)).stdout,
    );
    assert.equal(failed.length, 1);
    assert.equal(failed[0].event.type, 'capture.failed');

    const keys = jsonLines((await cli(['events', 'list', '--type', 'key.created,key.revoked'], env)).stdout);
    assert.deepEqual(keys.map((l) => l.event.type).sort(), [
      'key.created',
      'key.created',
      'key.created',
      'key.created',
      'key.revoked',
      'key.revoked',
    ]);

    const captureFamily = jsonLines(
      (await cli(['events', 'list', '--tenant', 'alpha', '--type', 'capture.*'], env)).stdout,
    );
    assert.ok(captureFamily.length > 0 && captureFamily.every((l) => l.event.type.startsWith('capture.')));

    const all = jsonLines((await cli(['events', 'list', '--tenant', 'alpha'], env)).stdout);
    const middle = all[Math.floor(all.length / 2)].event.occurredAt;
    const since = jsonLines((await cli(['events', 'list', '--tenant', 'alpha', '--since', middle], env)).stdout);
    const until = jsonLines((await cli(['events', 'list', '--tenant', 'alpha', '--until', middle], env)).stdout);
    assert.ok(since.every((l) => l.event.occurredAt >= middle) && until.every((l) => l.event.occurredAt < middle));
    assert.equal(since.length + until.length, all.length);
    const future = await cli(['events', 'list', '--since', '2999-01-01'], env);
    assert.equal(future.code, 0);
    assert.equal(future.stdout, '');
  });

  it('prints a table on request', async () => {
    const r = await cli(
      ['events', 'list', '--tenant', 'beta', '--type', 'capture.submitted', '--format', 'table'],
      env,
    );
    assert.equal(r.code, 0, r.stderr);
    const [header, ...rows] = r.stdout.trimEnd().split('\n');
    assert.match(header!, /^seq\s+occurredAt\s+tenant\s+type\s+id\s+detail$/);
    assert.equal(rows.length, 3); // two single submissions and one schedule run
    assert.match(rows[0]!, /beta\s+capture\.submitted\s+evt_\w+\s+captures=1 first=cap_/);
  });

  it('refuses bad filters with exit 2 and names the option', async () => {
    for (const [argv, text] of [
      [['events', 'list', '--since', 'yesterday'], /--since must be an ISO 8601/],
      [['events', 'list', '--tenant', 'Bad Tenant'], /--tenant must match/],
      [['events', 'list', '--type', 'nonsense'], /--type must be an event type/],
      [['events', 'list', '--format', 'xml'], /--format must be one of jsonl, table/],
      [['events', 'list', '--bogus'], /Unknown option '--bogus'/],
    ] as const) {
      const r = await cli([...argv], env);
      assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, text);
      assert.match(r.stderr, /usage: capture-ledger events list/);
    }
  });

  it('tails live events from now, filtered, and stops on the signal or after --limit', async () => {
    const tenants = s.server.ctx.tenants;
    const ready = () => {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, onStderr: (t: string) => t.includes('tailing') && resolve() };
    };
    const r1 = ready();
    const limited = cli(['events', 'tail', '--tenant', 'alpha', '--type', 'key.created', '--limit', '2'], env, {
      onStderr: r1.onStderr,
    });
    await r1.promise;
    await tenants.execute(
      'beta',
      { type: 'CreateKey', data: { keyHash: 'b'.repeat(64), scopes: ['read'], name: 'beta' } },
      { correlationId: 't', causedBy: { kind: 'admin' } },
    );
    await tenants.execute(
      'alpha',
      { type: 'RecordApiCalls', data: { period: '2030-01', count: 1 } },
      { correlationId: 't', causedBy: { kind: 'admin' } },
    );
    for (const c of ['c', 'd', 'e']) {
      await tenants.execute(
        'alpha',
        { type: 'CreateKey', data: { keyHash: c.repeat(64), scopes: ['read'], name: c } },
        { correlationId: 't', causedBy: { kind: 'admin' } },
      );
    }
    const out = await limited;
    assert.equal(out.code, 0, out.stderr);
    const lines = jsonLines(out.stdout);
    assert.deepEqual(
      lines.map((l) => [l.event.tenantId, l.event.type, l.event.data.keyHash[0]]),
      [
        ['alpha', 'key.created', 'c'],
        ['alpha', 'key.created', 'd'],
      ],
    );

    // Without --limit it runs until interrupted, and that is a clean exit.
    const r2 = ready();
    const controller = new AbortController();
    const open = cli(['events', 'tail'], env, { signal: controller.signal, onStderr: r2.onStderr });
    await r2.promise;
    await tenants.execute(
      'beta',
      { type: 'RecordApiCalls', data: { period: '2030-01', count: 2 } },
      { correlationId: 't', causedBy: { kind: 'admin' } },
    );
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    const stopped = await open;
    assert.equal(stopped.code, 0);
    assert.deepEqual(
      jsonLines(stopped.stdout).map((l) => l.event.type),
      ['usage.api_calls_recorded'],
    );
  });

  it('finds the service through DATA_DIR/run.json when NATS_URL and DATABASE_URL are unset', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cl-run-'));
    try {
      const none = await cli(['events', 'list', '--tenant', 'beta'], { DATA_DIR: dir });
      assert.equal(none.code, 1);
      assert.match(none.stderr, /NATS_URL is not set and no running service was found/);
      assert.match(none.stderr, /make run/);

      await writeRunFile(dir, { natsUrl: s.infra.nats.url, databaseUrl: s.databaseUrl, pid: process.pid });
      const found = await cli(['events', 'list', '--tenant', 'beta'], { DATA_DIR: dir });
      assert.equal(found.code, 0, found.stderr);
      assert.ok(jsonLines(found.stdout).length > 10);

      await writeRunFile(dir, { natsUrl: s.infra.nats.url, databaseUrl: s.databaseUrl, pid: 2 ** 22 + 12345 });
      const stale = await cli(['usage', 'report', '--period', '2030-01'], { DATA_DIR: dir });
      assert.equal(stale.code, 1);
      assert.match(stale.stderr, /which is not running/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('says what to do when NATS is unreachable', async () => {
    const r = await cli(['events', 'list'], { NATS_URL: 'nats://127.0.0.1:1' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot connect to NATS at nats:\/\/127\.0\.0\.1:1/);
    assert.match(r.stderr, /Check NATS_URL/);
  });
});
