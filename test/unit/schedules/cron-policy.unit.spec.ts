import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSchedule } from '../../../src/schedules/cron-policy.js';

function valid(expr: string) {
  const result = parseSchedule(expr);
  if (!result.ok) assert.fail(`${JSON.stringify(expr)} should be valid: ${result.detail}`);
  return result;
}

function invalid(expr: string, pattern: RegExp): void {
  const result = parseSchedule(expr);
  assert.equal(result.ok, false, `${JSON.stringify(expr)} should be rejected`);
  if (!result.ok) assert.match(result.detail, pattern, expr);
}

const at = (iso: string): Date => new Date(iso);

describe('parseSchedule', () => {
  it('accepts hourly and computes the next run in UTC', () => {
    const s = valid('0 * * * *');
    assert.equal(s.expression, '0 * * * *');
    assert.deepEqual(s.nextRunAt(at('2024-03-10T01:30:00Z')), at('2024-03-10T02:00:00Z'));
    // Strictly after: a run exactly at `after` is not the next one.
    assert.deepEqual(s.nextRunAt(at('2024-03-10T02:00:00Z')), at('2024-03-10T03:00:00Z'));
    assert.deepEqual(s.nextRunAt(at('2024-03-10T01:59:59.500Z')), at('2024-03-10T02:00:00Z'));
  });

  it('is UTC with no daylight-saving shift', () => {
    // 2024-03-31 is the EU DST switch; 2024-03-10 the US one. UTC runs stay at the same wall time.
    const s = valid('30 2 * * *');
    assert.deepEqual(s.nextRunAt(at('2024-03-30T12:00:00Z')), at('2024-03-31T02:30:00Z'));
    assert.deepEqual(s.nextRunAt(at('2024-03-09T12:00:00Z')), at('2024-03-10T02:30:00Z'));
  });

  it('accepts lists, ranges, steps and names in the hour/day/month fields', () => {
    assert.equal(valid('15 */6 * * *').expression, '15 0,6,12,18 * * *');
    assert.equal(valid('0 9-17/4 * * mon-fri').expression, '0 9,13,17 * * 1,2,3,4,5');
    assert.equal(valid('5 0 1,15 jan,jul *').expression, '5 0 1,15 1,7 *');
    assert.deepEqual(valid('0 9 * * MON').nextRunAt(at('2024-01-01T09:00:00Z')), at('2024-01-08T09:00:00Z'));
  });

  it('treats day-of-week 7 and 0 as Sunday', () => {
    const seven = valid('0 12 * * 7');
    const zero = valid('0 12 * * 0');
    const from = at('2024-01-01T00:00:00Z'); // a Monday
    assert.deepEqual(seven.nextRunAt(from), at('2024-01-07T12:00:00Z'));
    assert.deepEqual(seven.nextRunAt(from), zero.nextRunAt(from));
    assert.equal(seven.nextRunAt(from).getUTCDay(), 0);
    assert.equal(valid('0 12 * * 0,7').expression, '0 12 * * 0');
    assert.equal(valid('0 12 * * sun,7').expression, '0 12 * * 0');
    assert.equal(valid('0 12 * * 5-7').expression, '0 12 * * 0,5,6');
  });

  it('keeps the Vixie OR rule when both day-of-month and day-of-week are restricted', () => {
    // "on the 15th, or on Mondays"
    const s = valid('0 8 15 * 1');
    const runs = s.firesBetween(at('2024-01-01T08:00:00Z'), at('2024-01-31T23:59:59Z'));
    assert.deepEqual(
      runs.map((d) => d.toISOString().slice(0, 10)),
      ['2024-01-08', '2024-01-15', '2024-01-22', '2024-01-29'],
    );
    const t = valid('0 8 16 * 1').firesBetween(at('2024-01-01T08:00:00Z'), at('2024-01-31T23:59:59Z'));
    assert.equal(t.length, 5); // four Mondays and Tuesday the 16th
  });

  it('lists runs in (from, to] with a limit', () => {
    const s = valid('0 * * * *');
    const runs = s.firesBetween(at('2024-01-01T00:00:00Z'), at('2024-01-01T03:00:00Z'));
    assert.deepEqual(runs, [at('2024-01-01T01:00:00Z'), at('2024-01-01T02:00:00Z'), at('2024-01-01T03:00:00Z')]);
    assert.equal(s.firesBetween(at('2024-01-01T00:00:00Z'), at('2024-02-01T00:00:00Z'), 10).length, 10);
    assert.deepEqual(s.firesBetween(at('2024-01-01T03:00:00Z'), at('2024-01-01T03:00:00Z')), []);
  });

  it('supports the classic macros that run at most hourly', () => {
    assert.equal(valid('@hourly').expression, '0 * * * *');
    assert.equal(valid('@daily').expression, '0 0 * * *');
    assert.equal(valid('@weekly').expression, '0 0 * * 0');
    assert.deepEqual(valid('@monthly').nextRunAt(at('2024-02-10T00:00:00Z')), at('2024-03-01T00:00:00Z'));
    assert.deepEqual(valid('@yearly').nextRunAt(at('2024-02-10T00:00:00Z')), at('2025-01-01T00:00:00Z'));
    invalid('@reboot', /not supported/);
    invalid('@minutely', /not supported/);
    invalid('@every 1h', /not supported|field/);
  });

  it('rejects anything that can fire more than once per hour', () => {
    for (const expr of ['*/30 * * * *', '0,30 * * * *', '* * * * *', '0-1 * * * *', '*/15 9 * * *', '0,59 3 * * *']) {
      invalid(expr, /minimum interval is 1 hour/);
    }
    // One minute value spelt as a range or a step is still once an hour.
    assert.equal(valid('7-7 * * * *').expression, '7 * * * *');
    assert.equal(valid('0/60 * * * *').expression, '0 * * * *');
  });

  it('rejects seconds, wrong field counts and garbage', () => {
    invalid('0 0 * * * *', /six fields; seconds are not supported/);
    invalid('0 * * *', /4 fields/);
    invalid('0 0 * * * * 2024', /7 fields/);
    invalid('', /empty/);
    invalid('   ', /empty/);
    invalid('garbage', /1 field/);
    invalid('a b c d e', /minute field/);
    invalid('0 0 * * funday', /day-of-week field/);
    invalid('0 0 * foo *', /month field/);
  });

  it('rejects out-of-range values naming the field', () => {
    invalid('60 * * * *', /minute field "60": 60 is out of range 0-59/);
    invalid('0 24 * * *', /hour field "24": 24 is out of range 0-23/);
    invalid('0 0 0 * *', /day-of-month field "0": 0 is out of range 1-31/);
    invalid('0 0 32 * *', /day-of-month field/);
    invalid('0 0 * 13 *', /month field "13"/);
    invalid('0 0 * 0 *', /month field "0"/);
    invalid('0 0 * * 8', /day-of-week field "8": 8 is out of range 0-7/);
    invalid('0 5-1 * * *', /hour field "5-1"/);
    invalid('0 */0 * * *', /hour field .*step must be at least 1/);
  });

  it('rejects the non-standard extensions and impossible dates', () => {
    invalid('H * * * *', /minute field/);
    invalid('0 0 L * *', /day-of-month field/);
    invalid('0 0 15W * *', /day-of-month field/);
    invalid('0 0 ? * 1', /day-of-month field/);
    invalid('0 0 * * 1#2', /day-of-week field/);
    invalid('0 0 * * 5L', /day-of-week field/);
    invalid('0 0 1,,2 * *', /empty list item/);
    invalid('0 0 30 2 *', /never fires/);
  });
});
