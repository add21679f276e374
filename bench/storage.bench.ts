import { openArtifactStore } from '../src/storage/jetstream-artifact-store.js';
import { openS3ArtifactStore } from '../src/storage/s3-artifact-store.js';
import type { ArtifactStore } from '../src/storage/artifact-store.js';
import { startNatsOnly } from '../test/support/harness.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { type Radosgw, startRadosgw } from '../test/support/radosgw.js';
import type { BenchLine } from './registry.js';
import { withMakeRunService } from './support/make-run-service.js';
import { captureClient, envCount, percentile, pool, round, timeMs } from './support/bench-kit.js';

/**
 * The two artifact stores side by side, in one run on one machine. S3 is radosgw (Ceph 16.2) on
 * loopback, as the tests run it (test/support/radosgw.ts: one OSD on memstore) — a floor for the network and
 * HTTP cost of S3, not a figure for a real S3 deployment.
 *
 * 1. Store level: put and get of BENCH_STORAGE_OBJECTS (default 20) objects of 1 MiB, and ranged reads of 64 KiB.
 * 2. Through the service as `make run` starts it, once per store (ARTIFACT_STORE=jetstream | s3, and s3 with
 *    S3_PRESIGNED_DOWNLOADS): capture throughput two at a time (BENCH_STORAGE_CAPTURES, default 8, of /simple),
 *    then download latency of the bundle (BENCH_STORAGE_DOWNLOADS, default 40 each: whole, and a 64 KiB range),
 *    following the redirect where there is one.
 */
export async function storageBench(): Promise<BenchLine[]> {
  const objects = envCount('BENCH_STORAGE_OBJECTS', 20);
  const captures = envCount('BENCH_STORAGE_CAPTURES', 8);
  const downloads = envCount('BENCH_STORAGE_DOWNLOADS', 40);
  const gw = await startRadosgw();
  const lines: BenchLine[] = [];
  try {
    const s3Env = {
      ARTIFACT_STORE: 's3',
      S3_ENDPOINT: gw.endpoint,
      S3_BUCKET: 'bench',
      S3_ACCESS_KEY_ID: gw.accessKeyId,
      S3_SECRET_ACCESS_KEY: gw.secretAccessKey,
    };
    const nats = await startNatsOnly();
    try {
      const { connect } = await import('@nats-io/transport-node');
      const nc = await connect({ servers: nats.nats.url });
      const js = await storeLevel(await openArtifactStore(nc), objects);
      const s3 = await storeLevel(await openS3ArtifactStore(s3Settings(gw, 'bench-store')), objects);
      await nc.close();
      for (const figure of Object.keys(js) as Array<keyof typeof js>)
        lines.push({
          figure,
          jetstream: js[figure],
          s3: s3[figure],
          ratio: round(s3[figure] / js[figure], 2),
          ratioIs: 's3 / jetstream',
        });
    } finally {
      await nats.stop();
    }
    const site = await startFixtureSite();
    try {
      const runs: Record<string, Awaited<ReturnType<typeof throughService>>> = {};
      runs.jetstream = await withMakeRunService('storage-js', (svc, key) =>
        throughService(svc.baseUrl, key, site.url('/simple'), captures, downloads),
      );
      runs.s3 = await withMakeRunService(
        'storage-s3',
        (svc, key) => throughService(svc.baseUrl, key, site.url('/simple'), captures, downloads),
        [],
        {},
        s3Env,
      );
      runs['s3 presigned'] = await withMakeRunService(
        'storage-s3p',
        (svc, key) => throughService(svc.baseUrl, key, site.url('/simple'), captures, downloads),
        [],
        {},
        { ...s3Env, S3_BUCKET: 'bench-presigned', S3_PRESIGNED_DOWNLOADS: 'true' },
      );
      const base = runs.jetstream!;
      for (const [store, r] of Object.entries(runs)) {
        lines.push({
          figure: 'capture throughput captures/s, two at a time (/simple)',
          store,
          captures,
          perSec: round(r.perSec, 2),
          ratio: round(r.perSec / base.perSec, 2),
          ratioIs: 'this store / jetstream',
        });
        lines.push({
          figure: 'bundle download latency ms (p50/p95), whole and a 64 KiB range',
          store,
          downloads,
          bundleBytes: r.bundleBytes,
          wholeP50: round(percentile(r.whole, 50)),
          wholeP95: round(percentile(r.whole, 95)),
          rangeP50: round(percentile(r.range, 50)),
          rangeP95: round(percentile(r.range, 95)),
          ratio: round(percentile(r.whole, 50) / percentile(base.whole, 50), 2),
          ratioIs: 'whole p50, this store / jetstream',
        });
      }
    } finally {
      await site.close();
    }
    return lines;
  } finally {
    await gw.stop();
  }
}

function s3Settings(gw: Radosgw, bucket: string) {
  return {
    endpoint: gw.endpoint,
    region: gw.region,
    bucket,
    forcePathStyle: true,
    credentials: { accessKeyId: gw.accessKeyId, secretAccessKey: gw.secretAccessKey },
    presignedDownloads: false,
    presignSeconds: 300,
  };
}

async function storeLevel(store: ArtifactStore, count: number) {
  const size = 1024 * 1024;
  const blobs = Array.from({ length: count }, (_, i) => new Uint8Array(size).map((_, k) => (k * 31 + i * 7) & 0xff));
  const name = (i: number) => `cap_bench/${store.kind}/${i}`;
  const putMs = await timeMs(() => pool(count, 4, (i) => store.put(name(i), blobs[i]!)));
  const getMs = await timeMs(() => pool(count, 4, async (i) => void (await store.get(name(i)))));
  const ranges: number[] = [];
  for (let i = 0; i < count; i++) {
    ranges.push(
      await timeMs(async () => {
        const read = await store.read(name(i), { start: 65_536, end: 131_071 });
        for await (const _ of read!.body);
      }),
    );
  }
  const mbs = (ms: number) => round((count * size) / 1024 / 1024 / (ms / 1000), 1);
  return {
    'store put MB/s (1 MiB objects, 4 at a time)': mbs(putMs),
    'store get MB/s (1 MiB objects, 4 at a time, digest checked)': mbs(getMs),
    'store ranged read p50 ms (64 KiB of 1 MiB)': round(percentile(ranges, 50)),
  };
}

async function throughService(baseUrl: string, adminKey: string, url: string, captures: number, downloads: number) {
  const client = await captureClient(baseUrl, adminKey, 'bench-storage');
  // One to warm up (browser, bucket), then the timed ones.
  const first = await client.submit(url);
  await client.waitDone(first, { timeoutMs: 120_000 });
  const ids: string[] = [];
  const ms = await timeMs(() =>
    pool(captures, 2, async () => {
      const id = await client.submit(url);
      await client.waitDone(id, { timeoutMs: 120_000 });
      ids.push(id);
    }),
  );
  const bundleUrl = `${baseUrl}/v1/captures/${first}/artifacts/wacz`;
  let bundleBytes = 0;
  const whole: number[] = [];
  const range: number[] = [];
  for (let i = 0; i < downloads; i++) {
    whole.push(
      await timeMs(async () => {
        const res = await fetch(bundleUrl);
        bundleBytes = (await res.arrayBuffer()).byteLength;
        if (res.status !== 200) throw new Error(`download answered ${res.status}`);
      }),
    );
    range.push(
      await timeMs(async () => {
        const res = await fetch(bundleUrl, { headers: { range: 'bytes=0-65535' } });
        await res.arrayBuffer();
        if (res.status !== 206) throw new Error(`range answered ${res.status}`);
      }),
    );
  }
  return { perSec: captures / (ms / 1000), whole, range, bundleBytes };
}
