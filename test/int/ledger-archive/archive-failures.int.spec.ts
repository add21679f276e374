import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import pino from 'pino';
import { type NatsHandles, connectNats } from '../../../src/infra/nats.js';
import { openKvBucket } from '../../../src/infra/nats-buckets.js';
import { BUCKETS } from '../../../src/infra/topology.js';
import { type ArchiveLocation, openArchiveBucket } from '../../../src/ledger-archive/archive-bucket.js';
import { archiveKeys } from '../../../src/ledger-archive/archive-keys.js';
import { ArchiveDamagedError } from '../../../src/ledger-archive/archive-reader.js';
import { archiveLag } from '../../../src/ledger-archive/archive-status.js';
import { type Archiver, startArchiver } from '../../../src/ledger-archive/archiver.js';
import { restoreArchive } from '../../../src/ledger-archive/restore.js';
import { s3Client } from '../../../src/storage/s3-artifact-store.js';
import { startNatsOnly } from '../../support/harness.js';
import { type Radosgw, radosgwMissing, startRadosgw } from '../../support/radosgw.js';
import { radosgwArchive } from '../../support/radosgw-archive.js';

/**
 * The archive's failure paths on a real radosgw (docs/operators.md, The archive): the archiver waits out an S3
 * outage and a restart and leaves no gap; restore stops at --until and continues a restore run twice; a body
 * overwritten (a new object version over a locked one) is not read, and a missing segment is refused, named.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the archive through S3 outages, restarts and damage', { skip: radosgwMissing() ?? false }, () => {
  let gw: Radosgw;
  const servers: Array<Awaited<ReturnType<typeof startNatsOnly>>> = [];
  let source: NatsHandles;
  let loc: ArchiveLocation;
  const keys = archiveKeys('int.example/v1/log', randomBytes(32));
  const publish = async (from: number, to: number) => {
    for (let i = from; i < to; i++) await source.js.publish(`ledger.tenant.t${i % 3}`, Buffer.from(`{"i":${i}}`));
  };
  const target = async () => {
    const server = await startNatsOnly();
    servers.push(server);
    return connectNats(server.nats.url, 'restore-target');
  };

  before(async () => {
    gw = await startRadosgw();
    const server = await startNatsOnly();
    servers.push(server);
    source = await connectNats(server.nats.url, 'archive-source');
    loc = radosgwArchive(gw, 'int');
  });
  after(async () => {
    await source?.nc.close();
    for (const s of servers) await s.stop();
    await gw?.stop();
  });

  it('archives through an S3 outage and a restart with no gap, and restores up to a time and again', async () => {
    const state = await openKvBucket(source.nc, BUCKETS.archiveState.name, BUCKETS.archiveState.options, 1);
    const start = async (): Promise<Archiver> =>
      startArchiver({
        nats: source,
        bucket: () => openArchiveBucket(loc, { create: true }),
        keys,
        state,
        intervalMs: 200,
        maxRecords: 7,
        retentionDays: 1,
        log: pino({ level: 'silent' }),
      });
    const caughtUp = async () => {
      for (let i = 0; i < 600; i++) {
        if ((await archiveLag(source.jsm, state, new Date())).lagEvents === 0) return;
        await sleep(200);
      }
      throw new Error('the archive did not catch up');
    };
    let archiver = await start();
    await publish(0, 20);
    await caughtUp();
    await gw.stopGateway();
    await publish(20, 30); // acknowledged while S3 is down: the ledger never waits for the archive
    await sleep(1500);
    await gw.startGateway();
    await caughtUp();
    await archiver.stop();
    const cut = new Date();
    await sleep(50);
    await publish(30, 40);
    archiver = await start(); // a new archiver resumes from the archive's last manifest
    await caughtUp();
    await archiver.stop();

    const bucket = await openArchiveBucket(loc, { create: false });
    const full = await target();
    const deps = { nats: full, replicas: 1, bucket, keys, until: null, progress: () => undefined };
    const report = await restoreArchive(deps);
    assert.equal(report.streams.LEDGER, 40);
    for (const seq of [1, 25, 40]) {
      const [a, b] = await Promise.all([
        source.jsm.streams.getMessage('LEDGER', { seq }),
        full.jsm.streams.getMessage('LEDGER', { seq }),
      ]);
      assert.deepEqual([b!.subject, Buffer.from(b!.data)], [a!.subject, Buffer.from(a!.data)]);
    }
    assert.equal((await restoreArchive(deps)).streams.LEDGER, 40, 'a second run continues: nothing to add');
    const partial = await target();
    const until = await restoreArchive({ ...deps, nats: partial, until: cut });
    assert.equal(until.streams.LEDGER, 30, '--until restores the prefix stored by then');
    await Promise.all([full.nc.close(), partial.nc.close()]);
  });

  it('reads the first, locked version of an overwritten segment, and refuses an archive with a segment missing, naming it', async () => {
    const bucket = await openArchiveBucket(loc, { create: false });
    const manifest = JSON.parse(Buffer.from((await bucket.readManifest(2))!).toString('utf8'));
    const s3 = s3Client(loc.settings);
    // Object Lock keeps the locked version; a new version over it is not the archive's object.
    await s3.send(
      new PutObjectCommand({ Bucket: loc.bucket, Key: `${loc.prefix}${manifest.body.key}`, Body: 'forged\n' }),
    );
    const deps = { replicas: 1, bucket, keys, until: null, progress: () => undefined };
    const intact = await target();
    assert.equal((await restoreArchive({ ...deps, nats: intact })).streams.LEDGER, 40);
    await intact.nc.close();
    // A manifest after a gap: the segment before it is missing.
    const last = await bucket.lastSegment();
    await s3.send(
      new PutObjectCommand({
        Bucket: loc.bucket,
        Key: `${loc.prefix}manifests/${String(last + 2).padStart(12, '0')}.json`,
        Body: '{}',
      }),
    );
    const empty = await target();
    await assert.rejects(
      restoreArchive({ ...deps, nats: empty }),
      (err: unknown) => err instanceof ArchiveDamagedError && err.segment === last + 1,
    );
    assert.equal((await empty.jsm.streams.info('LEDGER')).state.messages, 0);
    await empty.nc.close();
  });
});
