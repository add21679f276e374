import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TenantActors } from '../../../src/actors/tenant-actors.js';
import { createUsageRecorder } from '../../../src/api/usage-recorder.js';
import { fixedClock } from '../../../src/domain/clock.js';
import { decideTenant, initialTenantState, type TenantCommand } from '../../../src/domain/tenant/index.js';

/** A runtime that records what was decided and how many appends were in flight at once. */
function recordingRuntime(failFirstFor?: string, held?: Promise<void>) {
  const recorded = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  let failed = false;
  let calls = 0;
  const runtime = {
    async execute(key: string, command: TenantCommand) {
      calls++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setImmediate(r));
      await held;
      inFlight--;
      if (key === failFirstFor && !failed) {
        failed = true;
        throw new Error('append failed');
      }
      for (const e of decideTenant(command, initialTenantState(key), new Date()).events) {
        if (e.type === 'usage.api_calls_recorded') recorded.set(key, (recorded.get(key) ?? 0) + e.data.count);
      }
      return { reply: null, appended: [], state: initialTenantState(key) };
    },
  } as unknown as TenantActors;
  return { runtime, recorded, maxInFlight: () => maxInFlight, calls: () => calls };
}

describe('usage recorder', () => {
  it('records every tenant’s count with a few appends in flight, not one per tenant at once', async () => {
    const r = recordingRuntime();
    const usage = createUsageRecorder(r.runtime, fixedClock(new Date('2026-11-22T10:00:00Z')), 3_600_000);
    for (let t = 0; t < 500; t++) for (let i = 0; i <= t % 3; i++) usage.count(`t${t}`);
    await usage.stop();
    assert.equal(r.recorded.size, 500);
    for (let t = 0; t < 500; t++) assert.equal(r.recorded.get(`t${t}`), (t % 3) + 1);
    assert.ok(r.maxInFlight() <= 8, `in flight at once: ${r.maxInFlight()}`);
  });

  it('a flush called while the timer’s flush is appending returns once those appends have landed', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const r = recordingRuntime(undefined, held);
    const usage = createUsageRecorder(r.runtime, fixedClock(new Date('2026-11-22T10:00:00Z')), 20);
    usage.count('t1');
    while (r.calls() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    // The timer's flush has taken t1's count and its append is held in flight.
    let flushed = false;
    const flushing = usage.flush().then(() => (flushed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(flushed, false, 'flush returned while the append it follows was in flight');
    release();
    await flushing;
    assert.equal(r.recorded.get('t1'), 1);
    await usage.stop();
  });

  it('keeps a count whose append failed for the next flush', async () => {
    const r = recordingRuntime('t1');
    const usage = createUsageRecorder(r.runtime, fixedClock(new Date('2026-11-22T10:00:00Z')), 3_600_000);
    usage.count('t1');
    usage.count('t1');
    await usage.flush();
    assert.equal(r.recorded.get('t1'), undefined);
    usage.count('t1');
    await usage.stop();
    assert.equal(r.recorded.get('t1'), 3);
  });
});
