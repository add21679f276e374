import { DeliverPolicy } from '@nats-io/jetstream';
import pino from 'pino';
import { createTenantActors } from '../src/actors/tenant-actors.js';
import type { TenantEvent } from '../src/domain/events.js';
import { newId } from '../src/domain/ids.js';
import { connectNats } from '../src/infra/nats.js';
import { createPool, LIVE_SCHEMA } from '../src/infra/postgres.js';
import { type EventEnvelope, seal } from '../src/ledger/envelope.js';
import { createEventStore, encodeCommit } from '../src/ledger/event-store.js';
import { LEDGER_STREAM, tenantSubject } from '../src/ledger/streams.js';
import { rebuildProjection } from '../src/projector/projection-rebuild.js';
import { createProjector } from '../src/projector/projector.js';
import { startInfra } from '../test/support/harness.js';
import { envCount, percentile, round, sleep } from './support/bench-kit.js';
import type { BenchLine } from './registry.js';

/**
 * `projections rebuild` throughput on a generated log (BENCH_EVENTS, default 100,000; up to
 * 1,000,000) against the raw JetStream read rate of the same log, and the live projection's lag while events
 * are appended at BENCH_LAG_RATE (default 500/s) for BENCH_LAG_SECONDS (default 20) against the raw delivery
 * latency of the same messages to a plain consumer.
 */

const TENANTS = 100;
const log = pino({ level: 'silent' });

/** A realistic mix per tenant: a key, then submissions with their outcomes and API call counts; one event per commit. */
function* generatedLog(total: number): Generator<{ subject: string; event: EventEnvelope }> {
  const heads = new Map<string, string | null>();
  const pending = new Map<string, string[]>();
  const start = Date.parse('2030-01-01T00:00:00Z');
  for (let i = 0; i < total; i++) {
    const tenantId = `bench${i % TENANTS}`;
    const n = Math.floor(i / TENANTS);
    const at = new Date(start + i * 10).toISOString();
    const open = pending.get(tenantId) ?? [];
    let e: TenantEvent;
    if (n === 0)
      e = {
        type: 'key.created',
        data: {
          keyHash: newId('evt').slice(4).padEnd(64, '0'),
          scopes: ['capture', 'read'],
          name: 'bench',
          createdAt: at,
        },
      };
    else if (n % 10 === 0) e = { type: 'usage.api_calls_recorded', data: { period: '2030-01', count: 25 } };
    else if (open.length > 0 && n % 2 === 0) {
      const captureId = open.shift()!;
      e =
        n % 6 === 0
          ? {
              type: 'capture.failed',
              data: { captureId, failedAt: at, error: 'navigation timeout', retryable: true, attempts: 3 },
            }
          : {
              type: 'capture.completed',
              data: {
                captureId,
                completedAt: at,
                renderQuality: 'full',
                render: { waitUntilReached: 'load', timedOut: false, durationMs: 1200 },
                artifacts: { screenshot: `${captureId}/s.png`, html: `${captureId}/p.html` },
                storedBytes: 250_000,
                attempts: 1,
              },
            };
    } else {
      const captureId = newId('cap');
      open.push(captureId);
      e = {
        type: 'capture.submitted',
        data: {
          captures: [{ captureId, url: `https://example.org/${tenantId}/${n}` }],
          period: '2030-01',
          source: 'single',
        },
      };
    }
    pending.set(tenantId, open);
    const event = seal(
      {
        ...e,
        id: newId('evt'),
        schemaVersion: 1,
        tenantId,
        occurredAt: at,
        causedBy: { kind: 'system', component: 'bench' },
        correlationId: 'bench',
      } as never,
      heads.get(tenantId) ?? null,
    ) as EventEnvelope;
    heads.set(tenantId, event.hash);
    yield { subject: tenantSubject(tenantId), event };
  }
}

export async function projectionsBench(): Promise<BenchLine[]> {
  const total = envCount('BENCH_EVENTS', 100_000);
  const lagRate = envCount('BENCH_LAG_RATE', 500);
  const lagSeconds = envCount('BENCH_LAG_SECONDS', 20);
  const infra = await startInfra();
  const nats = await connectNats(infra.nats.url, 'bench-projections');
  const store = createEventStore(nats.js, nats.jsm);
  const databaseUrl = await infra.freshDatabase();
  try {
    // ---- the log: pipelined publishes, 2,000 in flight -------------------------------------------------
    const inFlight = new Set<Promise<unknown>>();
    for (const { subject, event } of generatedLog(total)) {
      const p = nats.js.publish(subject, encodeCommit([event])).finally(() => inFlight.delete(p));
      inFlight.add(p);
      if (inFlight.size >= 2000) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    const lastSeq = await store.lastSeq();

    // ---- rebuild throughput vs the raw read rate of the same log ----------------------------------------
    const t0 = performance.now();
    const read = await store.replay(1, () => undefined, lastSeq);
    const rawPerSec = read / ((performance.now() - t0) / 1000);
    const rebuilt = await rebuildProjection({ js: nats.js, store, databaseUrl, log });
    const rebuildPerSec = rebuilt.replayedEvents / (rebuilt.replayMs / 1000);
    const lines: BenchLine[] = [
      {
        metric: 'rebuild-throughput',
        events: rebuilt.replayedEvents,
        rebuildEventsPerSec: Math.round(rebuildPerSec),
        baseline: 'raw JetStream read (decode only) of the same log',
        rawReadEventsPerSec: Math.round(rawPerSec),
        ratio: round(rebuildPerSec / rawPerSec, 3),
        rebuildSeconds: round(rebuilt.totalMs / 1000, 1),
      },
    ];

    // ---- live lag while appending through the tenant actors -------------------------------------------
    const pool = createPool(databaseUrl, LIVE_SCHEMA, 4);
    const projector = createProjector({ js: nats.js, pool, log });
    await projector.start();
    const projected: Array<[number, number]> = []; // [time, checkpoint]
    projector.events.on('checkpoint', (seq: number) => projected.push([performance.now(), seq]));
    // Baseline: the same messages delivered to a plain ordered consumer (no Postgres).
    const delivered = new Map<number, number>();
    const raw = await nats.js.consumers.get(LEDGER_STREAM, {
      filter_subjects: 'ledger.>',
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: lastSeq + 1,
    });
    const rawMessages = await raw.consume({ max_messages: 1000 });
    const rawLoop = (async () => {
      for await (const m of rawMessages) delivered.set(m.seq, performance.now());
    })();

    const actors = createTenantActors(store);
    const ctx = { correlationId: 'bench', causedBy: { kind: 'system' as const, component: 'bench' } };
    const loadTenants = 50;
    for (let t = 0; t < loadTenants; t++) {
      await actors.execute(
        `load${t}`,
        { type: 'SetQuotaOverrides', data: { capturesPerMonth: 100_000_000, storageBytes: null } },
        ctx,
      );
    }
    await sleep(500);
    const acked: Array<[number, number]> = []; // [time, seq]
    const lagSamples: number[] = [];
    let lastAcked = 0;
    const sampler = setInterval(() => lagSamples.push(Math.max(0, lastAcked - projector.checkpoint())), 50);
    const count = lagRate * lagSeconds;
    const begin = performance.now();
    const work: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const due = begin + (i * 1000) / lagRate;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      work.push(
        actors
          .execute(
            `load${i % loadTenants}`,
            i % 5 === 0
              ? { type: 'RecordApiCalls', data: { period: '2030-01', count: 1 } }
              : {
                  type: 'SubmitCaptures',
                  data: { captures: [{ captureId: newId('cap'), url: 'https://example.org/' }], source: 'single' },
                },
            ctx,
          )
          .then((r) => {
            const seq = r.appended.at(-1)!.seq;
            lastAcked = Math.max(lastAcked, seq);
            acked.push([performance.now(), seq]);
          }),
      );
    }
    await Promise.all(work);
    const elapsed = (performance.now() - begin) / 1000;
    const end = await store.lastSeq();
    while (projector.checkpoint() < end) await sleep(20);
    await sleep(200);
    clearInterval(sampler);
    await rawMessages.close();
    await rawLoop;
    await projector.stop();
    actors.close();
    await pool.end();

    // Lag of an event: from its append being acknowledged to the projection committing it (or to its delivery).
    projected.sort((a, b) => a[1] - b[1]);
    const firstCheckpointAtOrAfter = (seq: number) => {
      let lo = 0;
      let hi = projected.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (projected[mid]![1] >= seq) hi = mid;
        else lo = mid + 1;
      }
      // Checkpoints rise over time, so the first one reaching seq is also the earliest in time.
      return projected[lo]![0];
    };
    const projLag = acked.map(([at, seq]) => Math.max(0, firstCheckpointAtOrAfter(seq) - at));
    const rawLag = acked.map(([at, seq]) => Math.max(0, (delivered.get(seq) ?? at) - at));
    const p99 = percentile(projLag, 99);
    const rawP99 = percentile(rawLag, 99);
    lines.push({
      metric: 'projection-lag',
      appendedEvents: acked.length,
      appendRatePerSec: Math.round(acked.length / elapsed),
      seconds: round(elapsed, 1),
      lagP50Ms: round(percentile(projLag, 50), 1),
      lagP99Ms: round(p99, 1),
      lagMaxMs: round(Math.max(...projLag), 1),
      lagP99Commits: percentile(lagSamples, 99),
      baseline: 'raw JetStream delivery of the same messages to an ordered consumer',
      rawDeliveryP99Ms: round(rawP99, 2),
      ratio: round(p99 / Math.max(rawP99, 0.01), 1),
    });
    return lines;
  } finally {
    await nats.nc.close();
    await infra.stop();
  }
}
