import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { openArchiveBucket } from '../src/ledger-archive/archive-bucket.js';
import { archiveKeys } from '../src/ledger-archive/archive-keys.js';
import { archiveLag } from '../src/ledger-archive/archive-status.js';
import { startArchiver } from '../src/ledger-archive/archiver.js';
import { restoreArchive } from '../src/ledger-archive/restore.js';
import { connectNats } from '../src/infra/nats.js';
import { openKvBucket } from '../src/infra/nats-buckets.js';
import { BUCKETS } from '../src/infra/topology.js';
import { startNatsOnly } from '../test/support/harness.js';
import { startRadosgw } from '../test/support/radosgw.js';
import { radosgwArchive } from '../test/support/radosgw-archive.js';
import type { BenchLine } from './registry.js';
import { envCount, percentile, round, sleep } from './support/bench-kit.js';

/**
 * The archive (docs/operators.md, The archive), on radosgw over loopback (test/support/radosgw.ts):
 * 1. lag under steady appends: BENCH_ARCHIVE_RATE (default 200) ledger commits/s of ~600 bytes for
 *    BENCH_ARCHIVE_SECONDS (default 20) with the archiver running at its defaults (a segment every 1 s); the
 *    lag (GET /v1/admin/archive's lagSeconds) sampled every 250 ms: p50, p99, max.
 * 2. restore of BENCH_ARCHIVE_EVENTS (default 10,000) archived commits into an empty nats-server: check every
 *    segment, then republish, timed end to end, against the raw time to publish the same messages.
 */
export async function archiveBench(): Promise<BenchLine[]> {
  const rate = envCount('BENCH_ARCHIVE_RATE', 200);
  const seconds = envCount('BENCH_ARCHIVE_SECONDS', 20);
  const events = envCount('BENCH_ARCHIVE_EVENTS', 10_000);
  const gw = await startRadosgw();
  const [source, target] = [await startNatsOnly(), await startNatsOnly()];
  try {
    const a = await connectNats(source.nats.url, 'bench-archive-source');
    const loc = radosgwArchive(gw, 'bench');
    const keys = archiveKeys('bench.example/v1/log', randomBytes(32));
    const state = await openKvBucket(a.nc, BUCKETS.archiveState.name, BUCKETS.archiveState.options, 1);
    const archiver = startArchiver({
      nats: a,
      bucket: () => openArchiveBucket(loc, { create: true }),
      keys,
      state,
      intervalMs: 1000,
      maxRecords: 5000,
      retentionDays: 1,
      log: pino({ level: 'warn' }),
    });
    const payload = (i: number) => Buffer.from(JSON.stringify({ i, pad: randomBytes(280).toString('hex') }));
    const samples: number[] = [];
    const sampler = setInterval(
      () => void archiveLag(a.jsm, state, new Date()).then((l) => samples.push(l.lagSeconds)),
      250,
    );
    const steadyEnd = Date.now() + seconds * 1000;
    let sent = 0;
    while (Date.now() < steadyEnd) {
      const tickEnd = Date.now() + 100;
      for (let k = 0; k < rate / 10; k++) await a.js.publish(`ledger.tenant.t${sent % 50}`, payload(sent++));
      await sleep(Math.max(0, tickEnd - Date.now()));
    }
    clearInterval(sampler);
    for (let i = sent; i < events; i++) await a.js.publish(`ledger.tenant.t${i % 50}`, payload(i));
    while ((await archiveLag(a.jsm, state, new Date())).lagEvents > 0) await sleep(200);
    await archiver.stop();

    const b = await connectNats(target.nats.url, 'bench-archive-target');
    const restoreStarted = Date.now();
    const report = await restoreArchive({
      nats: b,
      replicas: 1,
      bucket: await openArchiveBucket(loc, { create: false }),
      keys,
      until: null,
      progress: () => undefined,
    });
    const restoreMs = Date.now() - restoreStarted;
    await b.jsm.streams.add({ name: 'RAW', subjects: ['bench.raw'] });
    const rawStarted = Date.now();
    for (let i = 0; i < events; i++) await b.js.publish('bench.raw', payload(i));
    const rawMs = Date.now() - rawStarted;
    await a.nc.close();
    await b.nc.close();
    return [
      {
        figure: 'lag-under-steady-appends',
        commitsPerSecond: rate,
        seconds,
        lagSecondsP50: round(percentile(samples, 50), 2),
        lagSecondsP99: round(percentile(samples, 99), 2),
        lagSecondsMax: round(Math.max(...samples), 2),
        goalSeconds: 10,
      },
      {
        figure: 'restore',
        events: Math.max(events, sent),
        segments: report.segments,
        restoreSeconds: round(restoreMs / 1000, 1),
        eventsPerSecond: Math.round(report.streams.LEDGER! / (restoreMs / 1000)),
        rawPublishSeconds: round(rawMs / 1000, 1),
        ratio: round(restoreMs / rawMs, 2),
        ratioIs: 'restore / raw publish of as many messages',
        goalSeconds: 120,
      },
    ];
  } finally {
    await source.stop();
    await target.stop();
    await gw.stop();
  }
}
