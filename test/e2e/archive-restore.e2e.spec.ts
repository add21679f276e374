import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../../src/cli/run-cli.js';
import { freePort } from '../../src/infra/free-port.js';
import { captureUntilComplete, type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { type Radosgw, radosgwMissing, startRadosgw } from '../support/radosgw.js';
import { type ServiceProcess, startServiceProcess } from '../support/service-process.js';
import { httpCall } from '../support/test-server.js';
import { assertSigned, makePki, type Pki, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * The restore drill (docs/operators.md, The archive; restore): `make run` with S3 artifacts and the archive, two
 * tenants, a dozen captures, a schedule and a webhook; the archive catches up; the whole stack is SIGKILLed and
 * its DATA_DIR deleted (NATS and Postgres gone); `capture-ledger restore` rebuilds a new DATA_DIR from the archive
 * alone; the new stack lists and verifies every capture, counts the same usage, accepts the old keys, fires the
 * schedule (its fire time passed while the deployment was down) and delivers its outcome with the webhook's own
 * secret; both audits pass and a log monitor that saw the old checkpoints accepts the new one.
 */
const ADMIN = 'drill-admin-key-0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, probe: () => Promise<T | false | null | undefined>, ms = 300_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    env: { ...process.env, ...env },
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
  });
  return { code, out, err };
}

/** SIGKILL the service and the nats-server and Postgres it started: the whole stack, as a lost machine. */
async function killStack(service: ServiceProcess, dataDir: string): Promise<void> {
  await service.kill('SIGKILL');
  for (const pidFile of [join(dataDir, 'nats', 'nats-server.pid'), join(dataDir, 'postgres', 'postmaster.pid')]) {
    const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).split('\n')[0]);
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone already */
      }
    }
  }
}

describe('the restore drill: the ledger outlives the cluster', { skip: radosgwMissing() ?? false }, () => {
  let gw: Radosgw;
  let site: FixtureSite;
  let pki: Pki;
  let rx: Receiver;
  let port: number;
  let env: Record<string, string>;
  const dirs: string[] = [];
  let service: ServiceProcess | null = null;
  /** The DATA_DIR of the stack running now (its nats-server and Postgres die with it in `after`). */
  let liveDir = '';

  before(async () => {
    [gw, site, pki] = await Promise.all([startRadosgw(), startFixtureSite(), makePki()]);
    rx = await startReceiver(pki);
    port = await freePort();
    env = {
      ADMIN_KEY: ADMIN,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      SIGNING_KEY: randomBytes(32).toString('base64'),
      LOG_SIGNING_KEY: randomBytes(32).toString('base64'),
      LOG_CHECKPOINT_INTERVAL_MS: '1000',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      WEBHOOK_CA_CERTS: pki.caPath,
      WEBHOOK_RETRY_DELAYS: '1,1,1',
      RATE_LIMIT_IP_PER_MIN: '100000',
      RATE_LIMIT_TENANT_PER_MIN: '100000',
      CAPTURE_TIMEOUT_MS: '20000',
      WORKER_CONCURRENCY: '2',
      ARTIFACT_STORE: 's3',
      S3_ENDPOINT: gw.endpoint,
      S3_BUCKET: 'evidence',
      S3_ACCESS_KEY_ID: gw.accessKeyId,
      S3_SECRET_ACCESS_KEY: gw.secretAccessKey,
      ARCHIVE_URL: 's3://archive/drill',
      ARCHIVE_INTERVAL_MS: '500',
    };
  });
  after(async () => {
    if (service) await killStack(service, liveDir);
    await rx?.close();
    await site?.close();
    await gw?.stop();
    for (const dir of [...dirs, pki?.dir]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('restores every capture, key, schedule, webhook, usage and the same log from the archive alone', async () => {
    const oldDir = await mkdtemp(join(tmpdir(), 'cl-drill-a-'));
    dirs.push(oldDir);
    liveDir = oldDir;
    service = await startServiceProcess({ ...env, DATA_DIR: oldDir }, port);
    const base = service.baseUrl;
    const call = (method: string, path: string, opts: { body?: unknown; token?: string } = {}) =>
      httpCall(
        `${base}${path}`,
        method,
        {
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
          ...(opts.body ? { 'content-type': 'application/json' } : {}),
        },
        opts.body ? JSON.stringify(opts.body) : undefined,
      );
    const keyOf = async (tenantId: string) => {
      const r = await call('POST', '/v1/admin/keys', {
        token: ADMIN,
        body: { tenantId, scopes: ['capture', 'read'], name: 'drill' },
      });
      assert.equal(r.status, 201, r.text);
      return r.body.key as string;
    };
    const tenants = { 'drill-a': await keyOf('drill-a'), 'drill-b': await keyOf('drill-b') };
    const hook = await call('POST', '/v1/webhooks', {
      token: tenants['drill-a'],
      body: { name: 'drill', url: rx.url('/drill'), events: ['capture.complete'] },
    });
    assert.equal(hook.status, 201, hook.text);

    // A dozen captures, six per tenant, two at a time.
    const captured = await Promise.all(
      Object.values(tenants).map(async (token) => {
        const ids: string[] = [];
        for (let i = 0; i < 6; i++) ids.push(await captureUntilComplete(call, token, site.url(`/simple?n=${i}`)));
        return ids;
      }),
    );
    const captureIds = captured.flat();
    // The schedule's one fire time falls while the deployment is down: the restored scheduler runs it (catch-up).
    const fireAt = new Date(Math.ceil((Date.now() + 60_000) / 60_000) * 60_000);
    const schedule = await call('POST', '/v1/schedules', {
      token: tenants['drill-a'],
      body: { name: 'drill', url: site.url('/simple?scheduled'), cron: `${fireAt.getUTCMinutes()} * * * *` },
    });
    assert.equal(schedule.status, 201, schedule.text);
    // API call counts not yet flushed die with the process; captures and storage are in the ledger.
    const usage = async (tenant: string) => {
      const { captureCount, storageBytes } = (await call('GET', `/v1/admin/usage?tenant=${tenant}`, { token: ADMIN }))
        .body;
      return { captureCount, storageBytes };
    };
    const usageBefore = { a: await usage('drill-a'), b: await usage('drill-b') };

    // A log monitor sees the old log's checkpoints, the last one with every capture's leaf.
    const logKey = (await call('GET', '/v1/log/key')).text.trim();
    const monitorDir = await mkdtemp(join(tmpdir(), 'cl-drill-monitor-'));
    dirs.push(monitorDir);
    await writeFile(join(monitorDir, 'ids.txt'), `${captureIds.join('\n')}\n`);
    const monitor = (dataDir: string) =>
      cli(
        [
          'log',
          'monitor',
          '--log-url',
          `${base}/v1/log`,
          '--log-key',
          logKey,
          '--state',
          join(monitorDir, 'seen.json'),
        ].concat(['--capture-ids', join(monitorDir, 'ids.txt')]),
        { DATA_DIR: dataDir },
      );
    await waitFor('a checkpoint with every capture', async () => (await monitor(oldDir)).code === 0);

    const lagAt = Date.now();
    const archived = await waitFor('the archive to catch up', async () => {
      const r = await call('GET', '/v1/admin/archive', { token: ADMIN });
      assert.equal(r.status, 200, r.text);
      return r.body.lagEvents === 0 && r.body;
    });
    const metrics = (await call('GET', '/metrics')).text;
    assert.match(metrics, /capture_ledger_archive_lag_events 0/);
    const lostAt = Date.now();
    process.stderr.write(`drill: archive lag 0 after ${lostAt - lagAt} ms; last segment ${archived.lastSegment}\n`);
    assert.ok(Date.now() < fireAt.getTime(), 'the stack is lost before the schedule fires');

    // The loss: every process SIGKILLed, DATA_DIR (NATS and Postgres) deleted.
    await killStack(service, oldDir);
    service = null;
    await rm(oldDir, { recursive: true, force: true });

    const newDir = await mkdtemp(join(tmpdir(), 'cl-drill-b-'));
    dirs.push(newDir);
    const restoreStarted = Date.now();
    const restored = await cli(['restore', '--from', env.ARCHIVE_URL!], { ...env, DATA_DIR: newDir });
    assert.equal(restored.code, 0, restored.err);
    const report = JSON.parse(restored.out);
    process.stderr.write(`drill: restore ${JSON.stringify({ ...report, ms: Date.now() - restoreStarted })}\n`);
    assert.deepEqual(report.lost, [], 'every capture with stored artifacts is in the archive');
    await sleep(fireAt.getTime() + 1000 - Date.now());

    liveDir = newDir;
    service = await startServiceProcess({ ...env, DATA_DIR: newDir }, port);
    // Every capture is listed (once the projection is rebuilt from the restored ledger) and verifies.
    for (const [tenant, token] of Object.entries(tenants)) {
      const mine = captured[Object.keys(tenants).indexOf(tenant)]!;
      await waitFor(`${tenant}'s captures listed`, async () => {
        const list = await call('GET', '/v1/captures?limit=100', { token });
        const ids = new Set((list.body?.data ?? []).map((c: { id: string }) => c.id));
        return mine.every((id) => ids.has(id));
      });
    }
    for (const id of captureIds) {
      const v = await call('GET', `/v1/verify/${id}`);
      assert.equal(v.body?.verified, true, `${id}: ${v.text}`);
    }
    assert.deepEqual({ a: await usage('drill-a'), b: await usage('drill-b') }, usageBefore);

    // The schedule fires with the old key's tenant, and the webhook delivers with its own secret.
    const fired = await waitFor('the schedule to fire', async () => {
      const r = await call('GET', `/v1/captures?schedule_id=${schedule.body.id}`, { token: tenants['drill-a'] });
      return r.body?.data?.[0]?.id as string | undefined;
    });
    const delivered = await waitFor('the webhook delivery of the scheduled capture', async () =>
      rx.at('/drill').find((r) => r.body?.data?.id === fired),
    );
    assertSigned(hook.body.secret, delivered);

    const cliEnv = { DATA_DIR: newDir };
    for (const tenant of Object.keys(tenants)) {
      const audit = await cli(['audit', '--tenant', tenant], cliEnv);
      assert.equal(audit.code, 0, audit.err + audit.out);
    }
    const logAudit = await cli(['log', 'audit'], cliEnv);
    assert.equal(logAudit.code, 0, logAudit.err + logAudit.out);
    const seen = await monitor(newDir);
    assert.equal(seen.code, 0, `the monitor accepts the restored log's checkpoint: ${seen.err}`);
  });
});
