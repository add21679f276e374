import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { connectNats, type NatsHandles } from '../../../src/infra/nats.js';
import { openKvBucket } from '../../../src/infra/nats-buckets.js';
import { BUCKETS } from '../../../src/infra/topology.js';
import { type ArchiveLocation, openArchiveBucket } from '../../../src/ledger-archive/archive-bucket.js';
import { archiveKeys } from '../../../src/ledger-archive/archive-keys.js';
import { LEASE_KEY, LEASE_MS } from '../../../src/ledger-archive/archive-lease.js';
import { readSegmentRecords, verifyArchive } from '../../../src/ledger-archive/archive-reader.js';
import { ARCHIVE_SOURCES } from '../../../src/ledger-archive/archive-sources.js';
import { archiveLag } from '../../../src/ledger-archive/archive-status.js';
import { type Archiver, startArchiver } from '../../../src/ledger-archive/archiver.js';
import { eventually } from '../../support/eventually.js';
import { startNatsOnly } from '../../support/harness.js';
import { type Radosgw, radosgwMissing, startRadosgw } from '../../support/radosgw.js';
import { radosgwArchive } from '../../support/radosgw-archive.js';
import { type S3Gate, startS3Gate } from '../../support/s3-gate.js';

/**
 * Two archivers meet at one segment number (docs/operators.md, The archive): archiver A's S3 write is held back
 * at a proxy until its lease has passed to B (as when A's renewals are cut off), B writes the segments after, and
 * then A's write reaches S3. Once with A's body held (B wrote that number first), once with A's manifest held (A's
 * body was there first, B seals it). Either way the archive verifies, and holds every LEDGER message exactly once.
 */
describe('two archivers and one segment number', { skip: radosgwMissing() ?? false }, () => {
  let gw: Radosgw;
  let gate: S3Gate;
  let server: Awaited<ReturnType<typeof startNatsOnly>>;
  let nats: NatsHandles;
  const keys = archiveKeys('int.example/v1/log', randomBytes(32));
  let published = 0;
  const publish = async (n: number) => {
    for (let i = 0; i < n; i++)
      await nats.js.publish(`ledger.tenant.t${published % 3}`, Buffer.from(`{"i":${published++}}`));
  };

  before(async () => {
    gw = await startRadosgw();
    gate = await startS3Gate(gw.endpoint);
    server = await startNatsOnly();
    nats = await connectNats(server.nats.url, 'archive-lease');
  });
  after(async () => {
    await nats?.nc.close();
    await server?.stop();
    await gate?.close();
    await gw?.stop();
  });

  async function contend(prefix: string, held: 'segments' | 'manifests') {
    // Both archivers write through the proxy; each run has its own archive and its own lease.
    const direct = radosgwArchive(gw, prefix);
    const loc: ArchiveLocation = { ...direct, settings: { ...direct.settings, endpoint: gate.endpoint } };
    const state = await openKvBucket(
      nats.nc,
      `${BUCKETS.archiveState.name}-${prefix}`,
      BUCKETS.archiveState.options,
      1,
    );
    const start = (holder: string): Archiver =>
      startArchiver({
        nats,
        bucket: () => openArchiveBucket(loc, { create: true }),
        keys,
        state,
        intervalMs: 200,
        maxRecords: 4,
        retentionDays: 1,
        holder,
        log: pino({ level: 'silent' }),
      });
    const caughtUp = () =>
      eventually(
        'the archive to catch up',
        async () => (await archiveLag(nats.jsm, state, new Date())).lagEvents === 0,
        300_000,
        200,
      );
    const archivers = [start('A')];
    await publish(6);
    await caughtUp();
    const lagged = await archiveLag(nats.jsm, state, new Date());

    // A's next write of the held kind waits at the proxy; meanwhile the lease passes to B.
    const holding = gate.holdNext((method, path) => method === 'PUT' && path.includes(`/${prefix}/${held}/`));
    await publish(3);
    const heldWrite = await holding;
    await state.put(LEASE_KEY, JSON.stringify({ holder: 'B', until: Date.now() + LEASE_MS }));
    archivers.push(start('B'));
    await publish(5);
    await eventually(
      'B to seal past the held number',
      async () => (await archiveLag(nats.jsm, state, new Date())).lastSegment > lagged.lastSegment + 1,
      300_000,
      200,
    );
    // A's write reaches S3 now, over B's object of that key: refused (412), or, where a versioned bucket lets it
    // through (radosgw with Object Lock), a later version that is not the archive's object. A finds out either way.
    assert.ok([200, 412].includes(await heldWrite.release()));
    await publish(4);
    await caughtUp();
    for (const a of archivers) await a.stop();

    const bucket = await openArchiveBucket(direct, { create: false });
    const verified = await verifyArchive(
      bucket,
      keys.logKey,
      ARCHIVE_SOURCES.map((s) => s.stream),
    );
    const seqs: number[] = [];
    for (const m of verified.manifests)
      for (const r of await readSegmentRecords(bucket, m)) if (r.stream === 'LEDGER') seqs.push(r.seq);
    const last = (await nats.jsm.streams.info('LEDGER')).state.last_seq;
    assert.deepEqual(
      seqs,
      Array.from({ length: last }, (_, i) => i + 1),
      'every LEDGER message once, in order',
    );
  }

  it('A writes a body after B sealed that number: refused, and A reads the archive again', async () => {
    await contend('late-body', 'segments');
  });

  it("A writes a manifest after B sealed A's body under that number: refused, the archive verifies", async () => {
    await contend('late-manifest', 'manifests');
  });
});
