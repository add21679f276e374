import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/infra/free-port.js';
import { sleep } from '../support/eventually.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { type Radosgw, radosgwMissing, startRadosgw } from '../support/radosgw.js';
import {
  apiCaller,
  assertAuditsPass,
  assertCapturesRestored,
  captureEach,
  deliveriesPerEvent,
  drillEnv,
  logMonitor,
  registerWebhook,
  restoreFrom,
  scheduleAfterLoss,
  startDrillService,
  tenantKeys,
  usageOf,
  waitFor,
  waitForArchiveLag0,
  waitForAttempts,
} from '../support/restore-drill.js';
import type { ServiceProcess } from '../support/service-process.js';
import { assertSigned, makePki, type Pki, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * The restore drill (docs/operators.md, The archive; restore): `make run` with S3 artifacts and the archive, two
 * tenants, two captures each, a schedule and a webhook; the archive catches up; the whole stack is SIGKILLed and
 * its DATA_DIR deleted (NATS and Postgres gone); `capture-ledger restore` rebuilds a new DATA_DIR from the archive
 * alone; the new stack lists and verifies every capture, counts the same usage, accepts the old keys, fires the
 * schedule (its fire time passed while the deployment was down) and delivers its outcome with the webhook's own
 * secret; both audits pass and a log monitor that saw the old checkpoints accepts the new one. Webhook deliveries
 * are counted per event id across the loss: one webhook's were all delivered before it (none is sent again), the
 * other's receiver refused them until the loss (each is delivered once after the restore).
 */
const ADMIN = 'drill-admin-key-0123456789';

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
    env = drillEnv({ admin: ADMIN, publicBaseUrl: `http://127.0.0.1:${port}`, gw, pki, archivePrefix: 'drill' });
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
    service = await startDrillService(env, oldDir, port);
    const base = service.baseUrl;
    const call = apiCaller(base);
    const tenantIds = ['drill-a', 'drill-b'];
    const keys = await tenantKeys(call, ADMIN, tenantIds);
    // A third tenant owns only the schedule and its webhook: the other two's usage stays as it was at the loss.
    const scheduler = (await tenantKeys(call, ADMIN, ['drill-c']))['drill-c']!;
    const scheduledHook = await registerWebhook(call, scheduler, rx, '/scheduled');
    // drill-a's receiver takes every delivery; drill-b's refuses them until the stack is lost.
    const hook = await registerWebhook(call, keys['drill-a']!, rx, '/drill');
    rx.script('/owed', [503]);
    const owedHook = await registerWebhook(call, keys['drill-b']!, rx, '/owed');

    // Two captures per tenant, the tenants side by side.
    const captured = await captureEach(call, keys, (i) => site.url(`/simple?n=${i}`), 2);
    const captureIds = Object.values(captured).flat();
    const usageBefore = await usageOf(call, ADMIN, tenantIds);

    // Every delivery's attempt is in the ledger: drill-a's delivered, drill-b's refused (its retry owed).
    const eventsOf = (path: string, n: number) =>
      waitFor(`${n} events at ${path}`, async () => {
        const events = [...deliveriesPerEvent(rx.at(path)).keys()];
        return events.length >= n && events;
      });
    const delivered = await eventsOf('/drill', captured['drill-a']!.length);
    const owed = await eventsOf('/owed', captured['drill-b']!.length);
    await waitForAttempts(call, ADMIN, hook.id, delivered, 'delivered');
    await waitForAttempts(call, ADMIN, owedHook.id, owed, 'failed');

    // A log monitor sees the old log's checkpoints, the last one with every capture's leaf.
    const logKey = (await call('GET', '/v1/log/key')).text.trim();
    const monitorDir = await mkdtemp(join(tmpdir(), 'cl-drill-monitor-'));
    dirs.push(monitorDir);
    await writeFile(join(monitorDir, 'ids.txt'), `${captureIds.join('\n')}\n`);
    const monitor = (dataDir: string) =>
      logMonitor({
        logKey,
        stateFile: join(monitorDir, 'seen.json'),
        idsFile: join(monitorDir, 'ids.txt'),
        env: { DATA_DIR: dataDir },
      })(base);
    await waitFor('a checkpoint with every capture', async () => (await monitor(oldDir)).code === 0);

    // The schedule's one fire time falls while the deployment is down: the restored scheduler runs it (catch-up).
    const schedule = await scheduleAfterLoss(call, scheduler, {
      name: 'drill',
      url: site.url('/simple?scheduled'),
      marginMs: 15_000,
    });
    const { fireAt } = schedule;
    const lag = await waitForArchiveLag0(call, ADMIN);
    process.stderr.write(`drill: archive lag 0 after ${lag.ms} ms; last segment ${lag.lastSegment}\n`);
    assert.ok(Date.now() < fireAt.getTime(), 'the stack is lost before the schedule fires');

    // The loss: every process SIGKILLed, DATA_DIR (NATS and Postgres) deleted.
    await killStack(service, oldDir);
    service = null;
    await rm(oldDir, { recursive: true, force: true });
    const lostAt = Date.now();
    rx.script('/owed', [200]);

    const newDir = await mkdtemp(join(tmpdir(), 'cl-drill-b-'));
    dirs.push(newDir);
    const { report, ms } = await restoreFrom(env.ARCHIVE_URL!, { ...env, DATA_DIR: newDir });
    process.stderr.write(`drill: restore ${JSON.stringify({ ...report, ms })}\n`);
    await sleep(fireAt.getTime() + 1000 - Date.now());

    liveDir = newDir;
    service = await startDrillService(env, newDir, port);
    await assertCapturesRestored(call, keys, captured);
    assert.deepEqual(await usageOf(call, ADMIN, tenantIds), usageBefore);

    // The schedule fires with the old key's tenant, and the webhook delivers with its own secret.
    const fired = await waitFor('the schedule to fire', async () => {
      const r = await call('GET', `/v1/captures?schedule_id=${schedule.id}`, { token: scheduler });
      return r.body?.data?.[0]?.id as string | undefined;
    });
    const firedDelivery = await waitFor('the webhook delivery of the scheduled capture', async () =>
      rx.at('/scheduled').find((r) => r.body?.data?.id === fired),
    );
    assertSigned(scheduledHook.secret, firedDelivery);
    // What was owed at the loss is delivered after the restore, with its webhook's own secret.
    await waitFor('the owed deliveries', async () =>
      owed.every((id) => rx.at('/owed').some((r) => r.at > lostAt && r.headers['x-svc-event-id'] === id)),
    );
    for (const r of rx.at('/owed').filter((r) => r.at > lostAt)) assertSigned(owedHook.secret, r);

    await assertAuditsPass([...tenantIds, 'drill-c'], { DATA_DIR: newDir });
    const seen = await monitor(newDir);
    assert.equal(seen.code, 0, `the monitor accepts the restored log's checkpoint: ${seen.err}`);

    // Each event was delivered once across the loss: none the old stack finished is sent again, each owed one once.
    const drill = deliveriesPerEvent(rx.at('/drill'));
    assert.deepEqual(
      [...drill.values()].map((d) => d.count),
      [...drill.keys()].map(() => 1),
      `deliveries per event at /drill: ${JSON.stringify([...drill])}`,
    );
    assert.deepEqual(new Set(drill.keys()), new Set(delivered));
    const afterLoss = deliveriesPerEvent(rx.at('/owed').filter((r) => r.at > lostAt));
    assert.deepEqual(new Map([...afterLoss].map(([id, d]) => [id, d.count])), new Map(owed.map((id) => [id, 1])));
  });
});
