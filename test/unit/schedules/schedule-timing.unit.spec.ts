import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSchedule } from '../../../src/schedules/cron-policy.js';
import { dueFireTime, nextRunAt } from '../../../src/schedules/schedule-timing.js';

const at = (iso: string): Date => new Date(iso);
const due = (cron: string, createdAt: string, lastHandled: string | null, now: string): string | null =>
  dueFireTime(
    { cron, createdAt: at(createdAt), lastHandled: lastHandled ? at(lastHandled) : null },
    at(now),
  )?.toISOString() ?? null;

describe('dueFireTime (spec 4.12; docs/schedules.md)', () => {
  it('nothing is due before the first fire time after creation', () => {
    assert.equal(due('0 * * * *', '2026-03-01T10:15:00Z', null, '2026-03-01T10:59:59.999Z'), null);
  });

  it('the first fire time after creation is due once now reaches it', () => {
    assert.equal(due('0 * * * *', '2026-03-01T10:15:00Z', null, '2026-03-01T11:00:00Z'), '2026-03-01T11:00:00.000Z');
    assert.equal(due('0 * * * *', '2026-03-01T10:15:00Z', null, '2026-03-01T11:00:07Z'), '2026-03-01T11:00:00.000Z');
  });

  it('a schedule created exactly on a fire time does not run for that instant', () => {
    assert.equal(due('0 * * * *', '2026-03-01T10:00:00Z', null, '2026-03-01T10:00:30Z'), null);
    assert.equal(due('0 * * * *', '2026-03-01T10:00:00Z', null, '2026-03-01T11:00:00Z'), '2026-03-01T11:00:00.000Z');
  });

  it('a handled fire time is not due again; the next one is', () => {
    assert.equal(due('0 * * * *', '2026-03-01T10:15:00Z', '2026-03-01T11:00:00Z', '2026-03-01T11:30:00Z'), null);
    assert.equal(
      due('0 * * * *', '2026-03-01T10:15:00Z', '2026-03-01T11:00:00Z', '2026-03-01T12:00:00Z'),
      '2026-03-01T12:00:00.000Z',
    );
  });

  it('catch-up after downtime: one run, for the most recent missed fire time', () => {
    // Down from 11:30 to 15:20: 12:00, 13:00, 14:00 and 15:00 were missed; only 15:00 runs.
    assert.equal(
      due('0 * * * *', '2026-03-01T10:15:00Z', '2026-03-01T11:00:00Z', '2026-03-01T15:20:00Z'),
      '2026-03-01T15:00:00.000Z',
    );
    // Never ran at all: the same rule from creation.
    assert.equal(due('30 6 * * *', '2026-03-01T00:00:00Z', null, '2026-03-05T07:00:00Z'), '2026-03-05T06:30:00.000Z');
    // Once it is handled, nothing older comes back.
    assert.equal(due('0 * * * *', '2026-03-01T10:15:00Z', '2026-03-01T15:00:00Z', '2026-03-01T15:20:00Z'), null);
  });

  it('catch-up is cheap across a long outage (no walk over every missed run)', () => {
    const started = Date.now();
    assert.equal(due('0 * * * *', '2020-01-01T00:00:00Z', null, '2026-03-01T15:20:00Z'), '2026-03-01T15:00:00.000Z');
    assert.ok(Date.now() - started < 1000);
  });

  it('is UTC: a daily run keeps its wall time across DST switches', () => {
    assert.equal(due('30 2 * * *', '2024-03-30T12:00:00Z', null, '2024-03-31T02:30:00Z'), '2024-03-31T02:30:00.000Z');
  });

  it('takes an already parsed expression too; an unparseable one is never due', () => {
    const parsed = parseSchedule('0 9 * * 1');
    assert.ok(parsed.ok);
    assert.equal(
      dueFireTime(
        { cron: parsed, createdAt: at('2026-03-01T00:00:00Z'), lastHandled: null },
        at('2026-03-02T09:00:00Z'),
      )?.toISOString(),
      '2026-03-02T09:00:00.000Z',
    );
    assert.equal(due('*/30 * * * *', '2026-03-01T00:00:00Z', null, '2026-03-02T00:00:00Z'), null);
  });
});

describe('nextRunAt (spec 2.10)', () => {
  const next = (cron: string, createdAt: string, lastHandled: string | null, now: string) =>
    nextRunAt(
      { cron, createdAt: at(createdAt), lastHandled: lastHandled ? at(lastHandled) : null },
      at(now),
    )?.toISOString();

  it('is the first fire time strictly after now', () => {
    assert.equal(next('0 * * * *', '2026-03-01T10:15:00Z', null, '2026-03-01T10:15:00Z'), '2026-03-01T11:00:00.000Z');
    assert.equal(
      next('0 * * * *', '2026-03-01T10:15:00Z', '2026-03-01T11:00:00Z', '2026-03-01T11:00:00Z'),
      '2026-03-01T12:00:00.000Z',
    );
    assert.equal(next('0 6 1 * *', '2026-03-01T10:15:00Z', null, '2026-03-01T10:15:00Z'), '2026-04-01T06:00:00.000Z');
  });
});
