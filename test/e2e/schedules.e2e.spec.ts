import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import pino from 'pino';
import { createTenantActors } from '../../src/actors/tenant-actors.js';
import { fixedClock } from '../../src/domain/clock.js';
import type { TenantEvent } from '../../src/domain/events.js';
import { tenantSubject } from '../../src/ledger/streams.js';
import { createScheduler, type FireReport, type Scheduler } from '../../src/schedules/scheduler.js';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Schedules end to end (spec 2.10, 3.4, 4.12, 7.3; docs/schedules.md) with no browser: the API and the
 * projector run in the test server, and the test drives schedulers itself with a fixed clock set to the
 * fire times it wants, so no test waits for a real hour.
 */

const HOUR = 3_600_000;
const URL_A = 'https://93.184.215.14/daily';
const URL_B = 'https://93.184.215.14/other';

/** Resolves for everyone once `n` callers are waiting. */
const barrier = (n: number) => {
  let waiting = 0;
  let release!: () => void;
  const all = new Promise<void>((r) => (release = r));
  return async () => {
    if (++waiting >= n) release();
    await all;
  };
};

describe('schedules (spec 4.12)', () => {
  let s: TestServer;
  let ip = 20;
  const from = () => `127.0.0.${ip++}`;
  const log = pino({ level: 'silent' });

  before(async () => {
    s = await startTestServer({ ROLES: 'api,projector' });
  });
  after(async () => s.stop());

  async function keyFor(tenantId: string, scopes: string[] = ['capture', 'read']): Promise<string> {
    const r = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      from: from(),
      body: { tenantId, scopes, name: `key ${tenantId}` },
    });
    assert.equal(r.status, 201, r.text);
    return r.body.key as string;
  }

  const create = (token: string, body: unknown) => s.call('POST', '/v1/schedules', { token, body });
  /** Wait until the projection has applied everything appended so far. */
  const synced = async () => assert.ok(await s.server.ctx.waiter.waitFor(await s.server.store!.lastSeq()));
  const schedulerAt = (
    clock: ReturnType<typeof fixedClock>,
    tenants = s.server.ctx.tenants,
    pool = s.server.ctx.pool,
  ): Scheduler => createScheduler({ pool, tenants, clock, log });
  const reportsFor = (reports: FireReport[], scheduleId: string) => reports.filter((r) => r.scheduleId === scheduleId);

  async function scheduleEvents(tenantId: string, scheduleId: string) {
    const events = await s.server.store!.readSubject(tenantSubject(tenantId));
    return events
      .map((e) => e.event as unknown as TenantEvent & { causedBy: { kind: string; scheduleId?: string } })
      .filter(
        (e) => (e.type === 'capture.submitted' || e.type === 'schedule.skipped') && e.data.scheduleId === scheduleId,
      );
  }

  it('creates, lists, gets and deletes a schedule; another tenant sees none of it', async () => {
    const token = await keyFor('sched-crud');
    const other = await keyFor('sched-crud-other');
    const reader = await keyFor('sched-crud', ['read']);

    const a = await create(token, { url: URL_A, name: 'Daily front page', cron: '0 6 * * *' });
    assert.equal(a.status, 201, a.text);
    assert.match(a.body.id, /^sch_[0-9a-f]{32}$/);
    const createdAt = new Date(a.body.createdAt);
    const expectedNext = new Date(
      Date.UTC(createdAt.getUTCFullYear(), createdAt.getUTCMonth(), createdAt.getUTCDate(), 6),
    );
    if (expectedNext <= createdAt) expectedNext.setUTCDate(expectedNext.getUTCDate() + 1);
    assert.deepEqual(a.body, {
      id: a.body.id,
      url: URL_A,
      name: 'Daily front page',
      cron: '0 6 * * *',
      paused: false,
      nextRunAt: expectedNext.toISOString(),
      lastRunAt: null,
      lastCaptureId: null,
      lastCaptureStatus: null,
      createdAt: a.body.createdAt,
    });
    const b = await create(token, { url: URL_B, name: 'Hourly', cron: '@hourly' });
    assert.equal(b.status, 201, b.text);

    const list = await s.call('GET', '/v1/schedules', { token: reader });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.map((x: { id: string }) => x.id),
      [a.body.id, b.body.id],
      'oldest first',
    );
    assert.deepEqual(list.body.data[0], a.body);

    const one = await s.call('GET', `/v1/schedules/${a.body.id}`, { token: reader });
    assert.equal(one.status, 200);
    assert.deepEqual(one.body, a.body);

    // Another tenant: empty list, 404 on read and delete.
    assert.deepEqual((await s.call('GET', '/v1/schedules', { token: other })).body, { data: [] });
    assertProblem((await s.call('GET', `/v1/schedules/${a.body.id}`, { token: other })).body, 404);
    assertProblem((await s.call('DELETE', `/v1/schedules/${a.body.id}`, { token: other })).body, 404);

    // Credential rule: read may look, only capture may create or delete.
    assertProblem((await create(reader, { url: URL_A, name: 'x', cron: '0 6 * * *' })).body, 403);
    assertProblem((await s.call('DELETE', `/v1/schedules/${a.body.id}`, { token: reader })).body, 403);
    assertProblem((await s.call('GET', '/v1/schedules')).body, 401);

    const deleted = await s.call('DELETE', `/v1/schedules/${a.body.id}`, { token });
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, { id: a.body.id, deleted: true });
    assertProblem((await s.call('GET', `/v1/schedules/${a.body.id}`, { token })).body, 404);
    assertProblem((await s.call('DELETE', `/v1/schedules/${a.body.id}`, { token })).body, 404);
    assertProblem((await s.call('DELETE', '/v1/schedules/not-an-id', { token })).body, 404);
    assert.deepEqual(
      (await s.call('GET', '/v1/schedules', { token })).body.data.map((x: { id: string }) => x.id),
      [b.body.id],
    );
    await s.call('DELETE', `/v1/schedules/${b.body.id}`, { token });
  });

  it('refuses bad cron expressions, URLs and fields with a 400 (or 422) naming the field', async () => {
    const token = await keyFor('sched-valid');
    const cron = async (expr: unknown, pattern: RegExp) => {
      const r = await create(token, { url: URL_A, name: 'n', cron: expr });
      assert.equal(r.status, 400, `${JSON.stringify(expr)}: ${r.text}`);
      assertProblem(r.body, 400);
      assert.match(r.body.detail, /cron/);
      assert.match(r.body.detail, pattern);
    };
    await cron('*/30 * * * *', /fires more than once per hour/);
    await cron('0,30 * * * *', /fires more than once per hour/);
    await cron('* * * * *', /fires more than once per hour/);
    await cron('0 0 * * * *', /six fields/);
    await cron('0 0 * *', /4 fields/);
    await cron('61 * * * *', /minute field/);
    await cron('', /empty/);
    await cron(undefined, /required/);
    await cron(5, /string/);

    const url = async (value: unknown, status: number, pattern: RegExp) => {
      const r = await create(token, { url: value, name: 'n', cron: '0 6 * * *' });
      assert.equal(r.status, status, `${JSON.stringify(value)}: ${r.text}`);
      assertProblem(r.body, status);
      assert.match(r.body.detail, /url/);
      assert.match(r.body.detail, pattern);
    };
    await url(undefined, 400, /required/);
    await url('not a url', 400, /not a valid absolute URL/);
    await url('ftp://93.184.215.14/x', 400, /scheme/);
    await url('http://127.0.0.1/', 422, /public internet address/);
    await url('http://10.0.0.8/admin', 422, /public internet address/);
    await url('https://user:pw@93.184.215.14/', 422, /user name or password/);
    await url('https://93.184.215.14/%2541', 422, /percent-encoded twice/);

    const noName = await create(token, { url: URL_A, cron: '0 6 * * *' });
    assert.equal(noName.status, 400);
    assert.match(noName.body.detail, /name/);
    const longName = await create(token, { url: URL_A, name: 'x'.repeat(129), cron: '0 6 * * *' });
    assert.equal(longName.status, 400);
    assert.match(longName.body.detail, /name/);
    const form = await s.call('POST', '/v1/schedules', {
      token,
      body: 'url=x',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(form.status, 415);
    assertProblem(form.body, 415);

    assert.deepEqual((await s.call('GET', '/v1/schedules', { token })).body, { data: [] }, 'nothing was created');
  });

  it('limits active schedules per tier (starter: 5) with a 429 limitType schedules; deleting frees a slot', async () => {
    const token = await keyFor('sched-limit');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await create(token, { url: URL_A, name: `s${i}`, cron: `${i} 3 * * *` });
      assert.equal(r.status, 201, r.text);
      ids.push(r.body.id);
    }
    const over = await create(token, { url: URL_A, name: 'sixth', cron: '0 4 * * *' });
    assert.equal(over.status, 429);
    assertProblem(over.body, 429);
    assert.equal(over.body.limitType, 'schedules');
    assert.match(over.body.detail, /5 active schedules/);

    assert.equal((await s.call('DELETE', `/v1/schedules/${ids[0]}`, { token })).status, 200);
    const again = await create(token, { url: URL_A, name: 'sixth', cron: '0 4 * * *' });
    assert.equal(again.status, 201, again.text);
    ids.push(again.body.id);
    assert.equal((await create(token, { url: URL_A, name: 'seventh', cron: '0 5 * * *' })).body.limitType, 'schedules');
    for (const id of ids.slice(1)) assert.equal((await s.call('DELETE', `/v1/schedules/${id}`, { token })).status, 200);
  });

  it('fires a due schedule exactly once with two schedulers ticking concurrently, catches up once, follows the latest run and filters captures by schedule_id', async () => {
    const tenantId = 'sched-fire';
    const token = await keyFor(tenantId);
    const created = await create(token, { url: URL_A, name: 'Hourly front page', cron: '0 * * * *' });
    assert.equal(created.status, 201, created.text);
    const id: string = created.body.id;
    const firstFire = new Date(created.body.nextRunAt);
    // A daily schedule 12 hours away from the hourly one's first fire, so it is never due inside this test's
    // clock window (firstFire .. +4 h 10 min), whatever the time of day the test runs.
    const decoyHour = (firstFire.getUTCHours() + 12) % 24;
    const decoy = await create(token, { url: URL_B, name: 'Daily other', cron: `30 ${decoyHour} * * *` });

    // Before the first fire time nothing happens.
    const clock = fixedClock(new Date(firstFire.getTime() - 1000));
    assert.deepEqual(reportsFor((await schedulerAt(clock).tick()).fired, id), []);

    // Two schedulers as two processes would run them: separate actor runtimes over the same log (OCC). Both
    // read the projection before either fires (a gate on their query), so both see the same fire time due.
    clock.set(new Date(firstFire.getTime() + 5_000));
    const otherProcess = createTenantActors(s.server.store!);
    await otherProcess.read(tenantId); // hydrated before the race, as a long-running process would be
    const conflictsBefore = s.server.ctx.tenants.stats().conflicts + otherProcess.stats().conflicts;
    const gate = barrier(2);
    const gated = {
      query: async (...args: unknown[]) => {
        const r = await (s.server.ctx.pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
        await gate();
        return r;
      },
    } as unknown as pg.Pool;
    try {
      const [a, b] = await Promise.all([
        schedulerAt(clock, s.server.ctx.tenants, gated).tick(),
        schedulerAt(clock, otherProcess, gated).tick(),
      ]);
      const outcomes = [...reportsFor(a.fired, id), ...reportsFor(b.fired, id)].map((r) => r.outcome.kind).sort();
      assert.deepEqual(outcomes, ['fired', 'not-due'], 'both saw it due; exactly one fired');
      // Both decided "fire" on the same state; the loser's append hit the OCC check, reloaded and found it handled.
      assert.ok(s.server.ctx.tenants.stats().conflicts + otherProcess.stats().conflicts > conflictsBefore);
    } finally {
      otherProcess.close();
    }
    let events = await scheduleEvents(tenantId, id);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type, 'capture.submitted');
    assert.equal((events[0]!.data as { fireTime: string }).fireTime, firstFire.toISOString());
    assert.deepEqual(events[0]!.causedBy, { kind: 'schedule', scheduleId: id });
    const firstCapture = (events[0]!.data as { captures: Array<{ captureId: string; url: string }> }).captures[0]!;
    assert.equal(firstCapture.url, URL_A);

    await synced();
    let got = (await s.call('GET', `/v1/schedules/${id}`, { token })).body;
    assert.equal(got.lastRunAt, firstFire.toISOString());
    assert.equal(got.lastCaptureId, firstCapture.captureId);
    assert.equal(got.lastCaptureStatus, 'pending');
    assert.equal(got.nextRunAt, new Date(firstFire.getTime() + HOUR).toISOString());

    // Ticking again at the same time does nothing (the projection now says it was handled).
    assert.deepEqual(reportsFor((await schedulerAt(clock).tick()).fired, id), []);

    // "Down" through four fire times: one run, for the most recent one, and nothing more on the next tick.
    clock.set(new Date(firstFire.getTime() + 4 * HOUR + 10 * 60_000));
    const catchUp = schedulerAt(clock);
    const caught = reportsFor((await catchUp.tick()).fired, id);
    assert.equal(caught.length, 1);
    assert.equal(caught[0]!.outcome.kind, 'fired');
    assert.equal(caught[0]!.fireTime, new Date(firstFire.getTime() + 4 * HOUR).toISOString());
    await synced();
    assert.deepEqual(reportsFor((await catchUp.tick()).fired, id), []);
    events = await scheduleEvents(tenantId, id);
    assert.deepEqual(
      events.map((e) => (e.data as { fireTime: string }).fireTime),
      [firstFire.toISOString(), new Date(firstFire.getTime() + 4 * HOUR).toISOString()],
    );
    const secondCaptureId = caught[0]!.outcome.kind === 'fired' ? caught[0]!.outcome.captureId : '';

    got = (await s.call('GET', `/v1/schedules/${id}`, { token })).body;
    assert.equal(got.lastRunAt, new Date(firstFire.getTime() + 4 * HOUR).toISOString());
    assert.equal(got.lastCaptureId, secondCaptureId);
    assert.equal(got.lastCaptureStatus, 'pending');

    // The capture list filter (spec 4.2 schedule_id): only this schedule's runs, not a manual capture.
    const manual = await s.call('POST', '/v1/captures', { token, body: { url: URL_A } });
    assert.equal(manual.status, 202, manual.text);
    const filtered = await s.call('GET', `/v1/captures?schedule_id=${id}&sort=created_at`, { token });
    assert.equal(filtered.status, 200);
    assert.deepEqual(
      filtered.body.data.map((c: { id: string }) => c.id),
      [firstCapture.captureId, secondCaptureId],
    );
    assert.equal(filtered.body.pagination.total, 2);
    assert.ok(
      filtered.body.data.every((c: { url: string; status: string }) => c.url === URL_A && c.status === 'pending'),
    );
    assert.deepEqual((await s.call('GET', `/v1/captures?schedule_id=${decoy.body.id}`, { token })).body.data, []);
    const all = await s.call('GET', '/v1/captures', { token });
    assert.equal(all.body.pagination.total, 3);
    // lastCaptureStatus follows the latest run's capture only (spec 2.10): an older run failing changes nothing.
    const fail = (captureId: string) =>
      s.server.ctx.tenants.execute(
        tenantId,
        { type: 'FailCapture', data: { captureId, error: 'test', retryable: true, attempts: 3 } },
        { correlationId: 'test', causedBy: { kind: 'system', component: 'test' } },
      );
    await fail(firstCapture.captureId);
    await synced();
    assert.equal((await s.call('GET', `/v1/schedules/${id}`, { token })).body.lastCaptureStatus, 'pending');
    await fail(secondCaptureId);
    await synced();
    assert.equal((await s.call('GET', `/v1/schedules/${id}`, { token })).body.lastCaptureStatus, 'failed');
    // Another tenant filtering by this schedule sees nothing.
    const stranger = await keyFor('sched-fire-other');
    assert.deepEqual((await s.call('GET', `/v1/captures?schedule_id=${id}`, { token: stranger })).body.data, []);

    // Deleted: never fires again, however far the clock moves.
    assert.equal((await s.call('DELETE', `/v1/schedules/${id}`, { token })).status, 200);
    clock.set(new Date(firstFire.getTime() + 48 * HOUR));
    assert.deepEqual(reportsFor((await schedulerAt(clock).tick()).fired, id), []);
    // Even a scheduler working from a stale projection row cannot fire it: the actor no longer knows it.
    const stale = await s.server.ctx.tenants.execute(
      tenantId,
      {
        type: 'FireSchedule',
        data: { scheduleId: id, fireTime: new Date(firstFire.getTime() + 48 * HOUR).toISOString(), captureId: 'cap_x' },
      },
      { correlationId: 'test', causedBy: { kind: 'schedule', scheduleId: id } },
    );
    assert.deepEqual(stale.reply, { kind: 'not-due' });
    assert.equal(stale.appended.length, 0);
    assert.equal((await scheduleEvents(tenantId, id)).length, 2);
    await s.call('DELETE', `/v1/schedules/${decoy.body.id}`, { token });
  });

  it('skips a run when the monthly quota is used up (lastCaptureStatus skipped_quota) and runs again once there is room', async () => {
    const tenantId = 'sched-quota';
    const token = await keyFor(tenantId);
    const created = await create(token, { url: URL_A, name: 'Quota probe', cron: '15 * * * *' });
    assert.equal(created.status, 201, created.text);
    const id: string = created.body.id;
    const fire1 = new Date(created.body.nextRunAt);
    const setQuota = async (capturesPerMonth: number | null) => {
      await s.server.ctx.tenants.execute(
        tenantId,
        { type: 'SetQuotaOverrides', data: { capturesPerMonth, storageBytes: null } },
        { correlationId: 'test', causedBy: { kind: 'admin' } },
      );
    };

    // One run within the quota…
    const clock = fixedClock(new Date(fire1.getTime() + 1000));
    const sched = schedulerAt(clock);
    const run1 = reportsFor((await sched.tick()).fired, id);
    assert.equal(run1[0]?.outcome.kind, 'fired');
    const capture1 = run1[0]!.outcome.kind === 'fired' ? run1[0]!.outcome.captureId : '';

    // …then the quota is used up: the next run is skipped, recorded, and counts nothing.
    await setQuota(1);
    clock.set(new Date(fire1.getTime() + HOUR + 1000));
    const run2 = reportsFor((await sched.tick()).fired, id);
    assert.equal(run2.length, 1);
    assert.equal(run2[0]!.outcome.kind, 'skipped');
    await synced();
    let got = (await s.call('GET', `/v1/schedules/${id}`, { token })).body;
    assert.equal(got.lastCaptureStatus, 'skipped_quota');
    assert.equal(got.lastRunAt, new Date(fire1.getTime() + HOUR).toISOString());
    assert.equal(got.lastCaptureId, null);
    const skipped = (await scheduleEvents(tenantId, id)).at(-1)!;
    assert.equal(skipped.type, 'schedule.skipped');
    assert.deepEqual(skipped.causedBy, { kind: 'schedule', scheduleId: id });
    // A skipped fire time is handled: it is not retried.
    assert.deepEqual(reportsFor((await sched.tick()).fired, id), []);
    const usage = await s.call('GET', `/v1/captures?schedule_id=${id}`, { token });
    assert.deepEqual(
      usage.body.data.map((c: { id: string }) => c.id),
      [capture1],
    );

    // Room again (override cleared → tier default): the next fire time runs.
    await setQuota(null);
    clock.set(new Date(fire1.getTime() + 2 * HOUR + 1000));
    const run3 = reportsFor((await sched.tick()).fired, id);
    assert.equal(run3[0]?.outcome.kind, 'fired');
    await synced();
    got = (await s.call('GET', `/v1/schedules/${id}`, { token })).body;
    assert.equal(got.lastCaptureStatus, 'pending');
    assert.equal(got.lastRunAt, new Date(fire1.getTime() + 2 * HOUR).toISOString());
    assert.equal(got.lastCaptureId, run3[0]!.outcome.kind === 'fired' ? run3[0]!.outcome.captureId : null);
    await s.call('DELETE', `/v1/schedules/${id}`, { token });
  });
});
