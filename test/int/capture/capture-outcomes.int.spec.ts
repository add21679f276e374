import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createTenantActors } from '../../../src/actors/tenant-actors.js';
import { serveCaptureOutcomes } from '../../../src/capture/capture-outcome-answers.js';
import { natsCaptureOutcomes } from '../../../src/capture/capture-outcomes.js';
import { newId } from '../../../src/domain/ids.js';
import { connectNats, type NatsHandles } from '../../../src/infra/nats.js';
import { createEventStore } from '../../../src/ledger/event-store.js';
import { tenantSubject } from '../../../src/ledger/streams.js';
import { startNatsOnly } from '../../support/harness.js';

const admin = { correlationId: 'test', causedBy: { kind: 'admin' as const } };

/**
 * The ledger side of capture outcomes (src/capture/capture-outcomes.ts) over a real nats-server: a worker's
 * report for a capture the named tenant does not hold as pending — another tenant's, or one nobody was
 * given — appends nothing and is logged; the capture's own outcome is applied once. Whether a capture is still
 * pending is answered from the same tenant state.
 */
describe('capture outcomes decided by the role with the tenant actors (real nats-server)', () => {
  let env: Awaited<ReturnType<typeof startNatsOnly>>;
  let owner: NatsHandles;
  let worker: NatsHandles;
  let service: { stop(): Promise<void> };
  let tenants: ReturnType<typeof createTenantActors>;
  const logged: Array<Record<string, unknown>> = [];

  before(async () => {
    env = await startNatsOnly();
    owner = await connectNats(env.nats.url, 'api');
    worker = await connectNats(env.nats.url, 'worker');
    tenants = createTenantActors(createEventStore(owner.js, owner.jsm));
    const sink = new Writable({
      write: (chunk, _enc, done) => {
        logged.push(JSON.parse(String(chunk)));
        done();
      },
    });
    service = serveCaptureOutcomes(owner.nc, tenants, pino({ level: 'info' }, sink));
  });
  after(async () => {
    await service?.stop();
    tenants?.close();
    await worker?.nc.close();
    await owner?.nc.close();
    await env?.stop();
  });

  it("appends nothing for another tenant's capture or an unknown one, logs each, and applies the real outcome once", async () => {
    const captureId = newId('cap');
    await tenants.execute(
      'owner',
      { type: 'SubmitCaptures', data: { captures: [{ captureId, url: 'https://example.org/' }], source: 'single' } },
      admin,
    );
    const store = createEventStore(worker.js, worker.jsm);
    const commits = async (tenantId: string) => (await store.readSubject(tenantSubject(tenantId))).length;
    const ownerBefore = await commits('owner');
    const outcomes = natsCaptureOutcomes(worker.nc);
    const fail = (id: string) => ({
      type: 'FailCapture' as const,
      data: { captureId: id, error: 'forged', retryable: false, attempts: 1 },
    });

    assert.deepEqual(
      (
        await outcomes.report('intruder', fail(captureId), {
          correlationId: 'forged',
          causedBy: { kind: 'system', component: 'capture-worker' },
        })
      ).reply,
      { applied: false },
    );
    assert.deepEqual(
      (
        await outcomes.report('owner', fail(newId('cap')), {
          correlationId: 'forged',
          causedBy: { kind: 'system', component: 'capture-worker' },
        })
      ).reply,
      { applied: false },
    );
    assert.equal(await commits('intruder'), 0, 'nothing for the tenant that has no such capture');
    assert.equal(await commits('owner'), ownerBefore, 'nothing for the owner');
    assert.ok((await tenants.read('owner')).pending.has(captureId), 'the capture is still pending');
    assert.equal(
      await outcomes.isPending('owner', captureId),
      true,
      'and the worker is told so, from the tenant state',
    );
    assert.equal(await outcomes.isPending('intruder', captureId), false, 'another tenant holds no such capture');
    const refusals = logged.filter((l) => String(l['msg']).startsWith('capture outcome not applied'));
    assert.deepEqual(
      refusals.map((l) => l['tenantId']),
      ['intruder', 'owner'],
      'each refusal is logged with its tenant',
    );
    assert.equal(refusals[0]!['captureId'], captureId);

    // The capture's own outcome, reported under its tenant, is applied — once.
    assert.deepEqual(
      (
        await outcomes.report('owner', fail(captureId), {
          correlationId: 'real',
          causedBy: { kind: 'system', component: 'capture-worker' },
        })
      ).reply,
      { applied: true },
    );
    assert.deepEqual(
      (
        await outcomes.report('owner', fail(captureId), {
          correlationId: 'repeat',
          causedBy: { kind: 'system', component: 'capture-worker' },
        })
      ).reply,
      { applied: false },
    );
    assert.equal(await commits('owner'), ownerBefore + 1);
    assert.equal(await outcomes.isPending('owner', captureId), false, 'a redelivered job for it is not rendered again');
    const last = (await store.readSubject(tenantSubject('owner'))).at(-1)!.event;
    assert.equal(last.type, 'capture.failed');
    assert.deepEqual(
      last.causedBy,
      { kind: 'system', component: 'capture-worker' },
      'the api names the cause, not the worker',
    );
  });
});
