import { openSnapshotStore } from '../src/actors/snapshot-store.js';
import { createTenantActors } from '../src/actors/tenant-actors.js';
import { periodOf } from '../src/domain/clock.js';
import type { TenantEvent } from '../src/domain/events.js';
import { newId } from '../src/domain/ids.js';
import { connectNats, type NatsHandles } from '../src/infra/nats.js';
import { type EventEnvelope, seal, type UnsealedEnvelope } from '../src/ledger/envelope.js';
import { createEventStore, encodeCommit } from '../src/ledger/event-store.js';
import { tenantSubject } from '../src/ledger/streams.js';
import { startNatsOnly } from '../test/support/harness.js';
import type { BenchLine } from './registry.js';
import { envCount, percentile, round } from './support/bench-kit.js';

const ctx = { correlationId: 'bench', causedBy: { kind: 'system' as const, component: 'bench' } };

/**
 * The cold first request of a tenant (a process that has not seen it, e.g. after a restart or a
 * passivation) for tenants with 1k, 10k and 100k events: hydration + decide + OCC append of one submission.
 * Baseline in the same run: the same request without snapshots (the whole subject folded). With snapshots:
 * right after a snapshot (tail ≈ 0, as after a passivation) and at the worst point between periodic
 * snapshots (tail = snapshotEvery − 1 events). Each figure is the median of BENCH_COLD_TRIALS (default 5)
 * fresh runtimes. BENCH_COLD_SIZES (default 1000,10000,100000).
 */
export async function coldHydrationBench(): Promise<BenchLine[]> {
  const trials = envCount('BENCH_COLD_TRIALS', 5);
  const sizes = (process.env.BENCH_COLD_SIZES ?? '1000,10000,100000').split(',').map(Number);
  const snapshotEvery = 200;
  const env = await startNatsOnly();
  const nats = await connectNats(env.nats.url, 'bench-cold');
  const store = createEventStore(nats.js, nats.jsm);
  const snapshots = await openSnapshotStore(nats.nc);
  const lines: BenchLine[] = [];
  try {
    const heads = new Map<string, string | null>();
    for (const size of sizes) {
      const started = performance.now();
      await writeHistory(nats, heads, `t${size}`, size);
      process.stderr.write(
        `cold-hydration: ${size} events written in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
      );
    }
    // `writes`: false keeps a trial from writing the snapshot the next trial would start from.
    const firstRequest = async (tenantId: string, withSnapshots: boolean, writes = true) => {
      const runtime = createTenantActors(
        store,
        withSnapshots ? { snapshots, snapshotEvery: writes ? snapshotEvery : Number.MAX_SAFE_INTEGER } : {},
      );
      const t0 = performance.now();
      await runtime.execute(
        tenantId,
        {
          type: 'SubmitCaptures',
          data: { captures: [{ captureId: newId('cap'), url: 'https://example.org/' }], source: 'single' },
        },
        ctx,
      );
      const ms = performance.now() - t0;
      runtime.close();
      return { ms, stats: runtime.stats() };
    };
    const median = async (tenantId: string, withSnapshots: boolean, writes = true) => {
      const samples: number[] = [];
      const folded: number[] = [];
      for (let i = 0; i < trials; i++) {
        const r = await firstRequest(tenantId, withSnapshots, writes);
        samples.push(r.ms);
        folded.push(r.stats.hydratedEvents);
      }
      return { ms: round(percentile(samples, 50), 1), folded: percentile(folded, 50) };
    };

    const figures: Array<{ size: number; before: number; after: number; afterWorst: number; tailWorst: number }> = [];
    for (const size of sizes) {
      const tenantId = `t${size}`;
      await firstRequest(tenantId, false); // warm-up: the server's caches for this subject
      const before = await median(tenantId, false);
      // A snapshot at the head, as a passivation leaves it.
      const writer = createTenantActors(store, { snapshots, snapshotEvery: 1 });
      await writer.read(tenantId);
      writer.close();
      await waitForSnapshot(snapshots, tenantId, (await store.last(tenantSubject(tenantId)))!.seq);
      const after = await median(tenantId, true);
      // The worst tail between periodic snapshots.
      await writeHistory(nats, heads, tenantId, snapshotEvery - 1 - trials, false);
      const worst = await median(tenantId, true, false);
      figures.push({ size, before: before.ms, after: after.ms, afterWorst: worst.ms, tailWorst: worst.folded });
      lines.push({
        figure: `cold first submission, tenant with ${size} events`,
        events: size,
        beforeMs: before.ms,
        beforeFolded: before.folded,
        afterMs: after.ms,
        afterFolded: after.folded,
        afterWorstTailMs: worst.ms,
        worstTailEvents: worst.folded,
        ratio: round(after.ms / Math.max(before.ms, 0.1), 3),
        ratioIs: 'with snapshots ÷ whole-subject fold, same run',
      });
    }
    const smallest = figures[0]!;
    const largest = figures.at(-1)!;
    lines.push({
      figure: `cold first submission, ${largest.size} vs ${smallest.size} events`,
      ratio: round(largest.afterWorst / Math.max(smallest.afterWorst, 0.1), 2),
      ratioIs: `worst-tail cold request at ${largest.size} events ÷ at ${smallest.size} events (goal ≤ 1.5, and ≤ 50 ms)`,
      beforeRatio: round(largest.before / Math.max(smallest.before, 0.1), 2),
    });
    return lines;
  } finally {
    await nats.nc.close();
    await env.stop();
  }
}

async function waitForSnapshot(snapshots: Awaited<ReturnType<typeof openSnapshotStore>>, key: string, seq: number) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const bytes = await snapshots.get(key);
    if (bytes && (JSON.parse(new TextDecoder().decode(bytes)) as { lastSeq: number }).lastSeq >= seq) return;
    if (Date.now() > deadline) throw new Error(`no snapshot of ${key} at ${seq}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * `count` events of one tenant, one per commit as actors append them when a tenant is not busy: alternating
 * submissions and completions (with realistic payloads), sealed into the hash chain here and published
 * pipelined, in order, on one connection (the order of arrival is the order of the chain).
 */
async function writeHistory(
  nats: NatsHandles,
  heads: Map<string, string | null>,
  tenantId: string,
  count: number,
  withQuota = true,
): Promise<void> {
  const subject = tenantSubject(tenantId);
  const period = periodOf(new Date());
  let prev = heads.get(tenantId) ?? null;
  const envelope = (e: TenantEvent): EventEnvelope => {
    const unsealed = {
      ...e,
      id: newId('evt'),
      schemaVersion: 1,
      tenantId,
      occurredAt: new Date().toISOString(),
      causedBy: ctx.causedBy,
      correlationId: 'bench',
    } as UnsealedEnvelope;
    const sealed = seal(unsealed, prev);
    prev = sealed.hash;
    return sealed;
  };
  const events: TenantEvent[] = [];
  if (withQuota)
    events.push({ type: 'tenant.quota_overrides_set', data: { capturesPerMonth: 1_000_000_000, storageBytes: 1e15 } });
  for (let i = 0; events.length < count; i++) {
    const captureId = newId('cap');
    events.push({
      type: 'capture.submitted',
      data: { captures: [{ captureId, url: `https://example.org/articles/${i}` }], period, source: 'single' },
    });
    if (events.length < count) {
      events.push({
        type: 'capture.completed',
        data: {
          captureId,
          completedAt: new Date().toISOString(),
          renderQuality: 'full',
          render: {
            waitUntilReached: 'load',
            timedOut: false,
            durationMs: 952,
            finalUrl: `https://example.org/articles/${i}`,
            httpStatus: 200,
            title: 'An article',
            stages: { navigationMs: 812, screenshotMs: 140 },
          },
          artifacts: {
            screenshot: `${captureId}/screenshot.png`,
            html: `${captureId}/page.html`,
            headers: `${captureId}/headers.json`,
            wacz: `${captureId}/bundle.wacz`,
          },
          bundle: {
            bundleHash: `sha256:${'ab'.repeat(32)}`,
            size: 123_456,
            version: '0.2.0',
            keyId: 'key_0123456789abcdef',
          },
          storedBytes: 180_000,
          attempts: 1,
        },
      });
    }
  }
  const window: Promise<unknown>[] = [];
  for (const e of events) {
    window.push(nats.js.publish(subject, encodeCommit([envelope(e)])));
    if (window.length >= 512) await Promise.all(window.splice(0));
  }
  await Promise.all(window);
  heads.set(tenantId, prev);
}
