import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { freePort } from '../src/infra/free-port.js';
import { connectNats, type NatsHandles } from '../src/infra/nats.js';
import { decodeCommit } from '../src/ledger/event-store.js';
import { tenantSubject } from '../src/ledger/streams.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { startInfra } from '../test/support/harness.js';
import { startServiceProcess } from '../test/support/service-process.js';
import type { BenchLine } from './registry.js';
import { captureClient, envCount, mb, pool, round, sleep } from './support/bench-kit.js';
import { type TreeMemory, treeMemory } from './support/process-memory.js';

const ADMIN = 'bench-admin-key-0123456789';
const TENANT = 'bench-rss';
const isChromium = (comm: string) => /^chrom/i.test(comm);

/**
 * Memory of the worker process including its Chromium after BENCH_RSS_CAPTURES (default 300)
 * captures of /simple, against the same figure after the first capture (baseline). The service runs as its
 * own OS process (ROLES=api,projector,worker, WORKER_CONCURRENCY=2) on NATS/Postgres started here, so its
 * process tree is the node process and Chromium only. RSS sums count shared pages once per process; Pss
 * (smaps_rollup) splits them and is printed beside it. The pool replaces Chromium every 50 captures, so
 * samples are taken every BENCH_RSS_SAMPLE_EVERY (default 50) captures as well.
 */
export async function workerRssBench(): Promise<BenchLine[]> {
  const captures = envCount('BENCH_RSS_CAPTURES', 300);
  const sampleEvery = envCount('BENCH_RSS_SAMPLE_EVERY', 50);
  const inFlight = 4; // keeps both worker slots busy
  const infra = await startInfra();
  const site = await startFixtureSite();
  const dataDir = await mkdtemp(join(tmpdir(), 'cl-bench-rss-'));
  let service: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  let nats: NatsHandles | undefined;
  try {
    service = await startServiceProcess(
      {
        ROLES: 'api,projector,worker',
        NATS_URL: infra.nats.url,
        DATABASE_URL: await infra.freshDatabase(),
        DATA_DIR: dataDir,
        ADMIN_KEY: ADMIN,
        ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
        SIGNING_KEY: randomBytes(32).toString('base64'),
        TSA_URL: '', // built-in local TSA
        WORKER_CONCURRENCY: '2',
        RATE_LIMIT_IP_PER_MIN: '10000000',
        RATE_LIMIT_TENANT_PER_MIN: '10000000',
      },
      await freePort(),
    );
    const pid = service.child.pid!;
    const client = await captureClient(service.baseUrl, ADMIN, TENANT);
    const target = site.url('/simple');
    // Outcomes are read from the tenant's ledger subject here, not polled: polling would load the process
    // being measured.
    nats = await connectNats(infra.nats.url, 'bench-rss');
    const outcomes = watchOutcomes(nats.nc, TENANT);
    const one = async () => outcomes.wait(await client.submit(target));
    const measure = () => treeMemory(pid, isChromium);

    await one();
    await sleep(500);
    const baseline = await measure();
    const samples: Array<{ after: number; mem: TreeMemory }> = [];
    let done = 1;
    let peak = baseline.totalRss;
    const t0 = performance.now();
    await pool(captures - 1, inFlight, async () => {
      await one();
      done++;
      if (done % sampleEvery === 0 && done < captures) {
        const mem = await measure();
        peak = Math.max(peak, mem.totalRss);
        samples.push({ after: done, mem });
      }
    });
    const seconds = (performance.now() - t0) / 1000;
    await sleep(500);
    const end = await measure();
    peak = Math.max(peak, end.totalRss);
    const fig = (m: TreeMemory) => ({
      totalRssMB: mb(m.totalRss),
      nodeRssMB: mb(m.rootRss),
      chromiumRssMB: mb(m.childRss),
      totalPssMB: mb(m.totalPss),
      chromiumProcs: m.children,
    });
    return [
      {
        figure: 'worker process + Chromium memory',
        captures,
        parallel: 2,
        baselineAfter1: fig(baseline),
        [`after${captures}`]: fig(end),
        peakTotalRssMB: mb(peak),
        ratio: round(end.totalRss / baseline.totalRss, 2),
        ratioIs: `total RSS after ${captures} / after 1`,
        pssRatio: round(end.totalPss / baseline.totalPss, 2),
        nodeRatio: round(end.rootRss / baseline.rootRss, 2),
        capturesPerSec: round((captures - 1) / seconds, 2),
        retried429: client.stats.retried429,
      },
      {
        // Taken mid-run (captures in flight, or Chromium being replaced after its 50th capture): the trend, not the figure.
        figure: 'samples during the run: total RSS MB / node RSS MB / Chromium processes',
        samples: samples
          .map((s) => `${s.after}: ${mb(s.mem.totalRss)} / ${mb(s.mem.rootRss)} / ${s.mem.children}`)
          .join(', '),
      },
    ];
  } finally {
    await nats?.nc.close();
    if (service && (await service.kill('SIGTERM')) !== 0)
      process.stderr.write(`worker-rss: service exit output:\n${service.output().slice(-2000)}\n`);
    await site.close();
    await infra.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Resolves `wait(captureId)` when the capture's completed event is on the ledger; rejects on failed. */
function watchOutcomes(nc: NatsConnection, tenantId: string) {
  const seen = new Map<string, string>();
  const waiters = new Map<string, { resolve: () => void; reject: (e: Error) => void }>();
  const settle = (id: string) => {
    const outcome = seen.get(id);
    const w = waiters.get(id);
    if (!outcome || !w) return;
    waiters.delete(id);
    if (outcome === 'capture.completed') w.resolve();
    else w.reject(new Error(`capture ${id}: ${outcome}`));
  };
  nc.subscribe(tenantSubject(tenantId), {
    callback: (_err, msg) => {
      for (const e of decodeCommit(msg.data)) {
        if (e.type !== 'capture.completed' && e.type !== 'capture.failed') continue;
        const id = (e.data as { captureId: string }).captureId;
        seen.set(id, e.type);
        settle(id);
      }
    },
  });
  return {
    wait(id: string): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`capture ${id}: no outcome after 120 s`)), 120_000);
        waiters.set(id, {
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        settle(id);
      });
    },
  };
}
