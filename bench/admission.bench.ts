import { createTenantActors } from '../src/actors/tenant-actors.js';
import { newId } from '../src/domain/ids.js';
import { connectNats } from '../src/infra/nats.js';
import { createEventStore } from '../src/ledger/event-store.js';
import { startNatsOnly } from '../test/support/harness.js';
import type { BenchLine } from './registry.js';

const ctx = { correlationId: 'bench', causedBy: { kind: 'system' as const, component: 'bench' } };

/**
 * Capture admissions through the tenant actor (fold, decide, OCC append) versus raw JetStream
 * publishes of the same payload size on the same server, both with 64 tenants × N in flight.
 */
export async function admissionBench(): Promise<BenchLine[]> {
  const env = await startNatsOnly();
  const nats = await connectNats(env.nats.url, 'bench');
  try {
    const tenants = 64;
    const perTenant = 60;
    const total = tenants * perTenant;
    const payload = new TextEncoder().encode(JSON.stringify({ type: 'capture.submitted', pad: 'x'.repeat(400) }));
    const actors = createTenantActors(createEventStore(nats.js, nats.jsm));
    for (let t = 0; t < tenants; t++) {
      await actors.execute(
        `bench${t}`,
        { type: 'SetQuotaOverrides', data: { capturesPerMonth: 1_000_000, storageBytes: null } },
        ctx,
      );
    }

    // Baseline: raw publishes (await each ack), the same concurrency shape: one sequential stream per tenant.
    const raw = async () => {
      await Promise.all(
        Array.from({ length: tenants }, async (_, t) => {
          for (let i = 0; i < perTenant; i++) await nats.js.publish(`ledger.tenant.raw${t}`, payload);
        }),
      );
    };
    const viaActors = async () => {
      await Promise.all(
        Array.from({ length: tenants * perTenant }, (_, i) =>
          actors.execute(
            `bench${i % tenants}`,
            {
              type: 'SubmitCaptures',
              data: { captures: [{ captureId: newId('cap'), url: 'https://example.org/' }], source: 'single' },
            },
            ctx,
          ),
        ),
      );
    };
    const timed = async (f: () => Promise<void>) => {
      const t0 = performance.now();
      await f();
      return (performance.now() - t0) / 1000;
    };
    await raw(); // warm-up of both paths
    await viaActors();
    let rawSec = Infinity;
    let actorSec = Infinity;
    for (let round = 0; round < 3; round++) {
      rawSec = Math.min(rawSec, await timed(raw));
      actorSec = Math.min(actorSec, await timed(viaActors));
    }
    actors.close();
    const rawPerSec = total / rawSec;
    const actorPerSec = total / actorSec;
    return [
      {
        admissions: total,
        tenants,
        rawPublishesPerSec: Math.round(rawPerSec),
        actorAdmissionsPerSec: Math.round(actorPerSec),
        ratio: Number((actorPerSec / rawPerSec).toFixed(2)),
        target: '>= 0.5',
        conflicts: actors.stats().conflicts,
      },
    ];
  } finally {
    await nats.nc.close();
    await env.stop();
  }
}
