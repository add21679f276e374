import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenantActors } from '../../../src/actors/tenant-actors.js';
import { DomainError } from '../../../src/domain/errors.js';
import { newId } from '../../../src/domain/ids.js';
import type { NatsHandles } from '../../../src/infra/nats.js';
import { checkEnvelope, type EventEnvelope } from '../../../src/ledger/envelope.js';
import { createEventStore } from '../../../src/ledger/event-store.js';
import { tenantSubject } from '../../../src/ledger/streams.js';
import { startNatsWithTwoClients } from '../../support/harness.js';

const ctx = { correlationId: 'test', causedBy: { kind: 'admin' as const } };

describe('tenant actors in two runtimes (as two API processes)', () => {
  let nats: Awaited<ReturnType<typeof startNatsWithTwoClients>>;
  let a: NatsHandles;
  let b: NatsHandles;
  before(async () => {
    nats = await startNatsWithTwoClients();
    ({ a, b } = nats);
  });
  after(async () => {
    await nats?.stop();
  });

  it('admits exactly the quota under concurrent submissions, with no lost or duplicated decision', async () => {
    const storeA = createEventStore(a.js, a.jsm);
    const storeB = createEventStore(b.js, b.jsm);
    const runtimeA = createTenantActors(storeA);
    const runtimeB = createTenantActors(storeB);
    await runtimeA.execute(
      'acme',
      { type: 'SetQuotaOverrides', data: { capturesPerMonth: 37, storageBytes: null } },
      ctx,
    );
    // Both hydrated at the same sequence, as two long-running processes would be: their first appends collide.
    await runtimeB.read('acme');

    const attempts = 120;
    const results = await Promise.allSettled(
      Array.from({ length: attempts }, (_, i) =>
        (i % 2 ? runtimeA : runtimeB).execute(
          'acme',
          {
            type: 'SubmitCaptures',
            data: { captures: [{ captureId: newId('cap'), url: 'https://example.org/' }], source: 'single' },
          },
          ctx,
        ),
      ),
    );
    const accepted = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    assert.equal(accepted.length, 37);
    assert.ok(
      refused.every(
        (r) =>
          (r as PromiseRejectedResult).reason instanceof DomainError &&
          (r as PromiseRejectedResult).reason.status === 429,
      ),
    );

    // The log holds exactly 37 submissions, in one unbroken hash chain.
    const events = await storeA.readSubject(tenantSubject('acme'));
    assert.equal(events.filter((e) => e.event.type === 'capture.submitted').length, 37);
    let prev: string | null = null;
    for (const e of events) {
      assert.equal(checkEnvelope(e.event as EventEnvelope, prev), null);
      prev = e.event.hash;
    }
    assert.ok(runtimeA.stats().conflicts + runtimeB.stats().conflicts > 0, 'the two runtimes really raced');
    runtimeA.close();
    runtimeB.close();
  });

  it('checks a decision that appends nothing against the newest log: an outcome for a capture admitted by the other runtime applies', async () => {
    const worker = createTenantActors(createEventStore(a.js, a.jsm));
    const api = createTenantActors(createEventStore(b.js, b.jsm));
    // The worker's cell is hydrated (and then stale) before the other runtime admits the capture.
    await worker.execute(
      'stale',
      { type: 'SetQuotaOverrides', data: { capturesPerMonth: 10, storageBytes: null } },
      ctx,
    );
    const captureId = newId('cap');
    await api.execute(
      'stale',
      {
        type: 'SubmitCaptures',
        data: { captures: [{ captureId: captureId, url: 'https://example.org/' }], source: 'single' },
      },
      ctx,
    );
    const outcome = await worker.execute(
      'stale',
      { type: 'FailCapture', data: { captureId, error: 'x', retryable: false, attempts: 1 } },
      ctx,
    );
    assert.deepEqual(outcome.reply, { applied: true });
    assert.equal(outcome.appended.length, 1);
    // And a refusal is checked too: the quota set through the other runtime is what the worker's cell decides on.
    await api.execute('stale', { type: 'SetQuotaOverrides', data: { capturesPerMonth: 1, storageBytes: null } }, ctx);
    await assert.rejects(
      worker.execute(
        'stale',
        {
          type: 'SubmitCaptures',
          data: { captures: [{ captureId: newId('cap'), url: 'https://example.org/' }], source: 'single' },
        },
        ctx,
      ),
      (err: unknown) => err instanceof DomainError && err.status === 429,
    );
    worker.close();
    api.close();
  });

  it('passivates idle actors and rehydrates them from the log', async () => {
    const runtime = createTenantActors(createEventStore(a.js, a.jsm), { idleMs: 1 });
    await runtime.execute(
      'idle',
      { type: 'SetQuotaOverrides', data: { capturesPerMonth: 5, storageBytes: null } },
      ctx,
    );
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(runtime.passivateIdle(), 1);
    assert.equal(runtime.size(), 0);
    const state = await runtime.read('idle');
    assert.equal(state.overrides.capturesPerMonth, 5);
    runtime.close();
  });
});
