import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../../src/domain/ids.js';
import { noteSignerFromSeed, verifierKeyString } from '../../../src/transparency/checkpoint.js';
import type { TenantCommand } from '../../../src/domain/tenant/index.js';
import { appendCommit, keyRotated } from '../../support/log-events.js';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../../support/test-server.js';
import { cli, writeTenantHistory } from '../cli/cli-fixtures.js';

/**
 * The operators' endpoints against a real nats-server and Postgres: the checks' last results recorded
 * by real CLI runs (in this process, with their own NATS and Postgres connections), the log monitor run by the api
 * on demand with its state kept between runs, and the webhook dead-letter queue across tenants. Operator access is
 * tenant-agnostic; a tenant key gets 401.
 */

const by = { correlationId: 'operator-checks-test', causedBy: { kind: 'admin' as const } };

describe('operator checks and dead letters', () => {
  let s: TestServer;
  let env: Record<string, string>;
  let nextAddress = 30;
  let tenantKey: string;
  const webhooks: Record<string, string> = {};

  const admin = (method: string, path: string) =>
    s.call(method, path, { token: ADMIN_KEY, from: `127.0.0.${nextAddress++}` });
  const run = (tenantId: string, command: TenantCommand) => s.server.ctx.tenants.execute(tenantId, command, by);
  const checkOf = async (name: string) => {
    const r = await admin('GET', '/v1/admin/checks');
    assert.equal(r.status, 200, r.text);
    return r.body.checks.find((c: { name: string }) => c.name === name);
  };

  before(async () => {
    s = await startTestServer({
      ROLES: 'api,projector,sequencer',
      LOG_CHECKPOINT_INTERVAL_MS: '300',
      LOG_SIGNING_KEY: randomBytes(32).toString('base64'),
      LOG_ORIGIN: 'ledger.test/v1/log',
    });
    env = { NATS_URL: s.infra.nats.url, DATABASE_URL: s.databaseUrl };
    await writeTenantHistory(s.server.ctx.tenants, 'audited', 4);
    // A key publication: the sequencer logs it, so the log has a leaf and a checkpoint.
    await appendCommit(s.server.store!, null, [keyRotated('k0')]);
    const created = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      from: `127.0.0.${nextAddress++}`,
      body: { tenantId: 'dl-a', scopes: ['capture', 'read'], name: 'a' },
    });
    assert.equal(created.status, 201, created.text);
    tenantKey = created.body.key;
    // Dead letters of two tenants, three and two, a millisecond apart so their order is known.
    for (const tenantId of ['dl-a', 'dl-b']) {
      webhooks[tenantId] = newId('whk');
      await run(tenantId, {
        type: 'RegisterWebhook',
        data: {
          webhookId: webhooks[tenantId]!,
          url: 'https://hooks.example.org/in',
          events: ['capture.complete'],
          name: `hook of ${tenantId}`,
          sealedSecret: 'c2VhbGVk',
        },
      } as TenantCommand);
    }
    for (const [tenantId, n] of [
      ['dl-a', 3],
      ['dl-b', 2],
    ] as const) {
      for (let i = 0; i < n; i++) {
        await run(tenantId, {
          type: 'DeadLetterDelivery',
          data: {
            deliveryId: newId('dlv'),
            webhookId: webhooks[tenantId]!,
            eventId: newId('evt'),
            eventType: 'capture.complete',
            attempts: 4,
            reason: `HTTP 50${i}`,
          },
        });
        await new Promise((r) => setTimeout(r, 3));
      }
    }
    await s.server.ctx.waiter.waitFor(await s.server.store!.lastSeq());
  });
  after(async () => s?.stop());

  it('lists every check, none run yet, with the command that runs it', async () => {
    const r = await admin('GET', '/v1/admin/checks');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.checks.map((c: { name: string }) => c.name),
      ['ledger-audit', 'log-audit', 'log-monitor', 'storage-verify'],
    );
    for (const c of r.body.checks) {
      assert.equal(c.last, null);
      assert.match(c.command, /^capture-ledger /);
    }
    assert.equal(r.body.checks.find((c: { name: string }) => c.name === 'log-monitor').onDemand, true);
  });

  it('records the result of a real `audit` run, with what it covered', async () => {
    const before = Date.now();
    const out = await cli(['audit', '--tenant', 'audited'], env);
    assert.equal(out.code, 0, out.stderr);
    const c = await checkOf('ledger-audit');
    assert.ok(c.last, 'recorded');
    assert.equal(c.last.ok, true);
    assert.equal(c.last.ranBy, 'cli');
    assert.equal(c.last.findingCount, 0);
    assert.deepEqual(c.last.findings, []);
    assert.match(c.last.covered, /^tenant audited: \d+ events/);
    assert.ok(Date.parse(c.last.ranAt) >= before - 1000);
    assert.ok(c.last.durationMs >= 0);
  });

  it('records `log audit` and `storage verify` runs', async () => {
    // The sequencer logs nothing here (no signed bundles); the audit still compares the log with the ledger.
    const logAudit = await cli(['log', 'audit'], env);
    assert.equal(logAudit.code, 0, logAudit.stderr);
    const la = await checkOf('log-audit');
    assert.equal(la.last.ok, true);
    assert.match(la.last.covered, /leaves of TLOG against LEDGER through sequence \d+/);
    // The tenant history's completed captures name artifacts nobody stored: real findings.
    const storage = await cli(['storage', 'verify'], env);
    assert.equal(storage.code, 1, storage.stderr);
    const sv = await checkOf('storage-verify');
    assert.equal(sv.last.ok, false);
    assert.ok(sv.last.findingCount >= 1);
    assert.equal(sv.last.findings[0].kind, 'missing');
    assert.match(
      sv.last.findings[0].message,
      /of capture cap_\w+ \(tenant audited, LEDGER sequence \d+\), object .+, is missing/,
    );
    assert.match(
      sv.last.covered,
      /^LEDGER sequences 1\.\.\d+: \d+ artifacts of \d+ captures, 0 whole, \d+ missing, 0 corrupt/,
    );
  });

  it('records a `log monitor` run pointed at the deployment, and its findings when it fails', async () => {
    const vkey = (await s.call('GET', '/v1/log/key')).text.trim();
    await waitForCheckpoint();
    const ok = await cli(['log', 'monitor', '--log-url', `${s.baseUrl}/v1/log`, '--log-key', vkey], env);
    assert.equal(ok.code, 0, ok.stderr);
    let c = await checkOf('log-monitor');
    assert.equal(c.last.ok, true);
    assert.equal(c.last.ranBy, 'cli');
    assert.match(c.last.covered, /\/v1\/log: the checkpoint of \d+ leaves, against 0 checkpoints seen before/);
    // Another deployment's key: the signature finding is recorded with its sentence.
    const wrongKey = verifierKeyString(noteSignerFromSeed('ledger.test/v1/log', randomBytes(32)));
    const bad = await cli(['log', 'monitor', '--log-url', `${s.baseUrl}/v1/log`, '--log-key', wrongKey], env);
    assert.equal(bad.code, 1);
    c = await checkOf('log-monitor');
    assert.equal(c.last.ok, false);
    assert.equal(c.last.findingCount, 1, JSON.stringify(c.last.findings));
    assert.equal(c.last.findings[0].kind, 'signature');
    assert.match(c.last.findings[0].message, /cannot be trusted/);
    // A monitor not pointed at any deployment records nothing and says nothing about it.
    const outside = await cli(['log', 'monitor', '--log-url', `${s.baseUrl}/v1/log`, '--log-key', vkey], {});
    assert.equal(outside.code, 0, outside.stderr);
    assert.equal(outside.stderr, '');
  });

  it('runs the log monitor on demand, keeping the checkpoints it has seen between runs', async () => {
    await waitForCheckpoint();
    const first = await admin('POST', '/v1/admin/checks/log-monitor');
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.ok, true, JSON.stringify(first.body.findings));
    assert.equal(first.body.ranBy, 'api');
    assert.match(first.body.covered, /the checkpoint of \d+ leaves, against \d+ checkpoints? seen before/);
    // A new leaf and checkpoint: the second run checks consistency against the first one's checkpoint.
    const size = Number(/of (\d+) leaves/.exec(first.body.covered)![1]);
    await appendCommit(s.server.store!, null, [keyRotated('k-later')]);
    await waitForCheckpoint(size);
    const second = await admin('POST', '/v1/admin/checks/log-monitor');
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.ok, true, JSON.stringify(second.body.findings));
    assert.match(second.body.covered, /against [1-9]\d* checkpoints? seen before/);
    const c = await checkOf('log-monitor');
    assert.equal(c.last.ranBy, 'api');
    assert.equal(c.last.ranAt, second.body.ranAt);
  });

  it('lists dead letters across tenants, newest first, a page at a time, or of one tenant', async () => {
    const all = await admin('GET', '/v1/admin/webhooks/dead-letters');
    assert.equal(all.status, 200, all.text);
    // Five here and one in the audited tenant's history.
    assert.equal(all.body.data.length, 6);
    assert.equal(all.body.nextCursor, null);
    const times = all.body.data.map((d: { deadLetteredAt: string }) => Date.parse(d.deadLetteredAt));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
    assert.deepEqual(Object.keys(all.body.data[0]).sort(), [
      'attempts',
      'deadLetteredAt',
      'deliveryId',
      'eventId',
      'eventType',
      'reason',
      'tenantId',
      'webhookId',
    ]);
    assert.equal(all.body.data[0].tenantId, 'dl-b');
    assert.equal(all.body.data[0].webhookId, webhooks['dl-b']);
    assert.equal(all.body.data[0].reason, 'HTTP 501');

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await admin(
        'GET',
        `/v1/admin/webhooks/dead-letters?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      assert.equal(page.status, 200, page.text);
      assert.ok(page.body.data.length <= 2);
      seen.push(...page.body.data.map((d: { deliveryId: string }) => d.deliveryId));
      cursor = page.body.nextCursor;
    } while (cursor);
    assert.deepEqual(
      seen,
      all.body.data.map((d: { deliveryId: string }) => d.deliveryId),
    );

    const one = await admin('GET', '/v1/admin/webhooks/dead-letters?tenant=dl-a');
    assert.equal(one.body.data.length, 3);
    assert.ok(one.body.data.every((d: { tenantId: string }) => d.tenantId === 'dl-a'));
  });

  it('answers bad input with the error body naming the field', async () => {
    for (const [path, field] of [
      ['/v1/admin/webhooks/dead-letters?limit=0', 'limit'],
      ['/v1/admin/webhooks/dead-letters?tenant=Not%20A%20Tenant', 'tenant'],
      ['/v1/admin/webhooks/dead-letters?cursor=garbage', 'cursor'],
    ] as const) {
      const r = await admin('GET', path);
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      assertProblem(r.body, 400);
      assert.match(r.body.detail, new RegExp(`querystring\\.${field}`), r.body.detail);
    }
  });

  it('refuses a tenant key and no credential with 401 on every new route', async () => {
    for (const [method, path] of [
      ['GET', '/v1/admin/checks'],
      ['POST', '/v1/admin/checks/log-monitor'],
      ['GET', '/v1/admin/webhooks/dead-letters'],
    ] as const) {
      const asTenant = await s.call(method, path, { token: tenantKey, from: `127.0.0.${nextAddress++}` });
      assert.equal(asTenant.status, 401, `${method} ${path}: ${asTenant.text}`);
      assertProblem(asTenant.body, 401);
      const anonymous = await s.call(method, path, { from: `127.0.0.${nextAddress++}` });
      assert.equal(anonymous.status, 401);
    }
  });

  /** Until a checkpoint covers more than `size` leaves (the sequencer logs key publications too). */
  async function waitForCheckpoint(size = -1) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const r = await s.call('GET', '/v1/log/checkpoint.json', { from: `127.0.0.${nextAddress++}` });
      if (r.status === 200 && r.body.treeSize > size) return;
      if (Date.now() > deadline) throw new Error(`no checkpoint over ${size} leaves: ${r.status} ${r.text}`);
      await new Promise((res) => setTimeout(res, 200));
    }
  }
});
