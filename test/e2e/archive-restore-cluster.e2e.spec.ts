import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { freePort } from '../../src/infra/free-port.js';
import type { LocalCluster, LocalClusterOptions } from '../../src/infra/local-cluster.js';
import { startTestCluster } from '../support/test-cluster.js';
import { openArchiveBucket } from '../../src/ledger-archive/archive-bucket.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { type Radosgw, radosgwMissing, startRadosgw } from '../support/radosgw.js';
import { radosgwArchive } from '../support/radosgw-archive.js';
import {
  apiCaller,
  assertAuditsPass,
  assertCapturesRestored,
  assertStreamsAreArchive,
  captureEach,
  deliveriesPerEvent,
  drillEnv,
  logMonitor,
  registerWebhook,
  restoreFrom,
  scheduleAfterLoss,
  tenantKeys,
  usageOf,
  waitFor,
  waitForArchiveLag0,
  waitForAttempts,
} from '../support/restore-drill.js';
import { makePki, type Pki, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * The restore drill on the scaled layout (docs/operators.md, restore): three clustered nats-servers, Postgres and
 * each role in its own process, archiving to a real radosgw; two tenants with four captures and a webhook, a third
 * with a schedule due after the loss; the archive catches up; every process is SIGKILLed and every NATS store and
 * Postgres deleted; `capture-ledger restore` republishes into a new, empty cluster (its streams then hold exactly the
 * archive's messages), whose roles start on it: every capture is listed and verifies, usage is equal, the schedule
 * fires, the old keys work and capture again, no finished webhook delivery is sent again, both audits pass and a log
 * monitor that saw the old checkpoints accepts the new one.
 */
const ADMIN = 'cluster-drill-admin-key-0123456789';
const ARCHIVE_PREFIX = 'cluster-drill';

describe('the restore drill on the 3-node layout', { skip: radosgwMissing() ?? false }, () => {
  let gw: Radosgw;
  let site: FixtureSite;
  let pki: Pki;
  let rx: Receiver;
  let layout: Omit<LocalClusterOptions, 'dir'>;
  const dirs: string[] = [];
  let cluster: LocalCluster | null = null;

  before(async () => {
    [gw, site, pki] = await Promise.all([startRadosgw(), startFixtureSite(), makePki()]);
    rx = await startReceiver(pki);
    const apiPort = await freePort();
    // One process per role keeps it lean; the NATS cluster is the three nodes of `make cluster`.
    layout = {
      apis: 1,
      workers: 1,
      signers: 1,
      sequencers: 1,
      apiPorts: [apiPort],
      env: drillEnv({
        admin: ADMIN,
        publicBaseUrl: `http://127.0.0.1:${apiPort}`,
        gw,
        pki,
        archivePrefix: ARCHIVE_PREFIX,
      }),
    };
  });
  after(async () => {
    await cluster?.stop();
    await rx?.close();
    await site?.close();
    await gw?.stop();
    for (const dir of [...dirs, pki?.dir]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('restores an empty cluster from the archive alone, every NATS store and Postgres deleted', async () => {
    const env = layout.env!;
    const oldDir = await mkdtemp(join(tmpdir(), 'cl-cdrill-a-'));
    dirs.push(oldDir);
    cluster = await startTestCluster({ dir: oldDir, ...layout });
    const base = cluster.apiUrls[0]!;
    const call = apiCaller(base);
    const tenantIds = ['cdrill-a', 'cdrill-b'];
    const keys = await tenantKeys(call, ADMIN, tenantIds);
    // The schedule's own tenant: its fire adds a capture, so the others' usage compares exactly.
    const scheduler = (await tenantKeys(call, ADMIN, ['cdrill-c']))['cdrill-c']!;
    const hook = await registerWebhook(call, keys['cdrill-a']!, rx, '/cluster');
    const captured = await captureEach(call, keys, (i) => site.url(`/simple?cluster=${i}`), 2);
    const usageBefore = await usageOf(call, ADMIN, tenantIds);
    const delivered = await waitFor('the webhook deliveries', async () => {
      const events = [...deliveriesPerEvent(rx.at('/cluster')).keys()];
      return events.length >= captured['cdrill-a']!.length && events;
    });
    await waitForAttempts(call, ADMIN, hook.id, delivered, 'delivered');

    const logKey = (await call('GET', '/v1/log/key')).text.trim();
    const monitorDir = await mkdtemp(join(tmpdir(), 'cl-cdrill-monitor-'));
    dirs.push(monitorDir);
    await writeFile(join(monitorDir, 'ids.txt'), `${Object.values(captured).flat().join('\n')}\n`);
    const monitor = logMonitor({
      logKey,
      stateFile: join(monitorDir, 'seen.json'),
      idsFile: join(monitorDir, 'ids.txt'),
      env: { DATA_DIR: monitorDir },
    });
    await waitFor('a checkpoint with every capture', async () => (await monitor(base)).code === 0);
    // The schedule's one fire time falls after the loss (created last, its minute at least 15 s ahead): the restored
    // cluster's scheduler runs it.
    const schedule = await scheduleAfterLoss(call, scheduler, {
      name: 'cluster drill',
      url: site.url('/simple?scheduled'),
      marginMs: 15_000,
    });
    const { fireAt } = schedule;
    const lag = await waitForArchiveLag0(call, ADMIN);
    process.stderr.write(`cluster drill: archive lag 0 after ${lag.ms} ms; last segment ${lag.lastSegment}\n`);

    // The loss: every role SIGKILLed, the three nats-servers and Postgres stopped, their stores deleted.
    assert.ok(Date.now() < fireAt.getTime(), 'the cluster is lost before the schedule fires');
    for (const p of cluster.processes) await cluster.kill(p.name, 'SIGKILL');
    await cluster.stop();
    cluster = null;
    await rm(oldDir, { recursive: true, force: true });

    // A new, empty cluster: restored into once its streams exist, before any role starts.
    const newDir = await mkdtemp(join(tmpdir(), 'cl-cdrill-b-'));
    dirs.push(newDir);
    let restoreMs = 0;
    cluster = await startTestCluster({
      dir: newDir,
      ...layout,
      async beforeRoles(nats) {
        const natsEnv = { NATS_URL: nats.url, NATS_USER: nats.user, NATS_PASSWORD: nats.pass, NATS_REPLICAS: '3' };
        const { report, ms } = await restoreFrom(env.ARCHIVE_URL!, { ...env, ...natsEnv, DATA_DIR: newDir });
        restoreMs = ms;
        process.stderr.write(`cluster drill: restore ${JSON.stringify({ ...report, ms })}\n`);
        const nc = await connect({ servers: nats.url.split(','), user: nats.user, pass: nats.pass });
        try {
          const bucket = await openArchiveBucket(radosgwArchive(gw, ARCHIVE_PREFIX), { create: false });
          await assertStreamsAreArchive(await jetstreamManager(nc), bucket, ['LEDGER', 'TLOG']);
        } finally {
          await nc.close();
        }
      },
    });
    assert.ok(restoreMs > 0);
    await assertCapturesRestored(call, keys, captured);
    assert.deepEqual(await usageOf(call, ADMIN, tenantIds), usageBefore);
    const fired = await waitFor('the schedule to fire', async () => {
      const r = await call('GET', `/v1/captures?schedule_id=${schedule.id}`, { token: scheduler });
      return r.body?.data?.[0]?.id as string | undefined;
    });
    process.stderr.write(`cluster drill: the schedule fired ${fired}\n`);

    // The old key captures again; its outcome is delivered, the outcomes delivered before the loss are not again.
    const next = await captureEach(call, { 'cdrill-a': keys['cdrill-a']! }, () => site.url('/simple?after'), 1);
    const nextId = next['cdrill-a']![0]!;
    await waitFor('the delivery of the capture after the restore', async () =>
      rx.at('/cluster').some((r) => r.body?.data?.id === nextId),
    );
    await writeFile(join(monitorDir, 'ids.txt'), `${[...Object.values(captured).flat(), nextId].join('\n')}\n`);
    await waitFor('a checkpoint consistent with the old ones, with the new capture', async () => {
      const seen = await monitor(base);
      return seen.code === 0;
    });
    const natsEnv = {
      NATS_URL: cluster.nats.url,
      NATS_USER: cluster.operator.user,
      NATS_PASSWORD: cluster.operator.pass,
      DATABASE_URL: cluster.databaseUrl,
    };
    await assertAuditsPass([...tenantIds, 'cdrill-c'], natsEnv);
    const perEvent = deliveriesPerEvent(rx.at('/cluster'));
    assert.deepEqual(
      [...perEvent.values()].map((d) => d.count),
      [...perEvent.keys()].map(() => 1),
      `deliveries per event: ${JSON.stringify([...perEvent])}`,
    );
  });
});
