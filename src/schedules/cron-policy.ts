// Schedule cron expressions (spec 4.12, 8.3): five fields — minute hour day-of-month month day-of-week —
// evaluated in UTC, firing at most once per hour.
//
// Semantics are cron-parser's (v5), which follow Vixie cron: when BOTH day-of-month and day-of-week are
// restricted (neither is exactly "*"), a day matches if EITHER matches — "0 9 1 * 1" runs on the 1st of
// each month AND on every Monday. Day-of-week 0 and 7 are both Sunday; "0,7" and "sun,7" are accepted.
// Names (jan-dec, sun-sat) are accepted in the month and day-of-week fields. Not accepted: seconds, the
// Quartz/Jenkins extensions (?, L, W, #, H) and macros other than the classic Vixie set below.
import { CronExpressionParser, type CronExpression } from 'cron-parser';

export type ScheduleParseResult =
  | {
      ok: true;
      /** The five fields with ranges and steps expanded, e.g. "0 9-17/4 * * *" → "0 9,13,17 * * *". */
      expression: string;
      /** The first run strictly after `after`. */
      nextRunAt(after: Date): Date;
      /** The latest run at or before `at`, or null when there is none within cron-parser's search range. */
      lastRunAtOrBefore(at: Date): Date | null;
      /** Runs t with from < t <= to, oldest first, at most `limit` (default 1000). */
      firesBetween(from: Date, to: Date, limit?: number): Date[];
    }
  | { ok: false; detail: string };

const FIELDS = [
  { key: 'minute', label: 'minute', min: 0, max: 59, names: false },
  { key: 'hour', label: 'hour', min: 0, max: 23, names: false },
  { key: 'dayOfMonth', label: 'day-of-month', min: 1, max: 31, names: false },
  { key: 'month', label: 'month', min: 1, max: 12, names: true },
  { key: 'dayOfWeek', label: 'day-of-week', min: 0, max: 7, names: true },
] as const;

type FieldSpec = (typeof FIELDS)[number];

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const FIELD_HELP = 'five fields: minute hour day-of-month month day-of-week, e.g. "0 6 * * 1"';
const MIN_INTERVAL_HELP = 'the minimum interval is 1 hour, so the minute field must name exactly one minute';

// One list item: "*", "5", "1-5", "mon-fri", each optionally with "/step".
const ITEM = /^(?:\*|(\w+)(?:-(\w+))?)(?:\/(\d+))?$/;

export function parseSchedule(expr: string): ScheduleParseResult {
  if (typeof expr !== 'string' || expr.trim() === '') {
    return fail(`cron expression is empty; expected ${FIELD_HELP}`);
  }
  let text = expr.trim();
  if (text.startsWith('@')) {
    const macro = MACROS[text.toLowerCase()];
    if (!macro) return fail(`cron macro ${JSON.stringify(text)} is not supported; use ${FIELD_HELP}`);
    text = macro;
  }
  const parts = text.split(/\s+/);
  if (parts.length === 6) {
    return fail(`cron expression has six fields; seconds are not supported, expected ${FIELD_HELP}`);
  }
  if (parts.length !== 5) {
    return fail(`cron expression has ${parts.length} field${parts.length === 1 ? '' : 's'}; expected ${FIELD_HELP}`);
  }

  const canonical: string[] = [];
  for (const [i, spec] of FIELDS.entries()) {
    const field = expandField(spec, parts[i]!);
    if (typeof field === 'object') return fail(field.detail);
    canonical.push(field);
  }
  const expression = canonical.join(' ');

  let parsed: CronExpression;
  try {
    parsed = CronExpressionParser.parse(expression, { tz: 'UTC' });
  } catch (err) {
    // With each field valid on its own, what is left is a day that never exists, e.g. "0 0 30 2 *".
    return fail(`cron expression never fires or is invalid (${errorText(err)}); check day-of-month against month`);
  }
  // The hourly minimum, checked on what cron-parser will actually run: seconds are fixed (we never pass a
  // seconds field), so one minute value means at most one run in any hour.
  const { second, minute } = parsed.fields;
  if (second.values.length !== 1 || minute.values.length !== 1) {
    return fail(
      `cron expression fires more than once per hour (minute field "${parts[0]}" gives ${minute.values.length} runs an hour); ${MIN_INTERVAL_HELP}`,
    );
  }

  const iterator = (after: Date): CronExpression =>
    CronExpressionParser.parse(expression, { tz: 'UTC', currentDate: after });

  return {
    ok: true,
    expression,
    nextRunAt(after: Date): Date {
      return iterator(after).next().toDate();
    },
    lastRunAtOrBefore(at: Date): Date | null {
      // cron-parser's prev() is strictly before its current date; one millisecond later makes it "at or before".
      try {
        return iterator(new Date(at.getTime() + 1))
          .prev()
          .toDate();
      } catch {
        return null;
      }
    },
    firesBetween(from: Date, to: Date, limit = 1000): Date[] {
      const out: Date[] = [];
      if (to.getTime() <= from.getTime()) return out;
      const it = iterator(from);
      while (out.length < limit) {
        const next = it.next().toDate();
        if (next.getTime() > to.getTime()) break;
        out.push(next);
      }
      return out;
    },
  };
}

/**
 * Validates one field and returns it as cron-parser should see it: "*" stays "*" (it decides the
 * day-of-month/day-of-week OR rule), anything else becomes the sorted list of values it stands for, so
 * duplicates such as "0,7" (both Sunday) do not trip cron-parser's duplicate check.
 */
function expandField(spec: FieldSpec, raw: string): string | { detail: string } {
  if (raw === '*') return raw;
  const bad = (why: string): { detail: string } => ({ detail: `${spec.label} field ${JSON.stringify(raw)}: ${why}` });
  const values = new Set<number>();
  for (const item of raw.split(',')) {
    const m = ITEM.exec(item);
    if (!m) {
      return bad(
        item === ''
          ? 'empty list item'
          : `${JSON.stringify(item)} is not a value, range or step (the characters ? L W # H are not supported)`,
      );
    }
    const [, start, end, step] = m;
    for (const token of [start, end]) {
      if (token === undefined) continue;
      if (/^\d+$/.test(token)) {
        const n = Number(token);
        if (n < spec.min || n > spec.max) return bad(`${n} is out of range ${spec.min}-${spec.max}`);
      } else if (!spec.names || !/^[a-z]{3}$/i.test(token)) {
        return bad(`${JSON.stringify(token)} is not a number${spec.names ? ' or a three-letter name' : ''}`);
      }
    }
    if (step !== undefined && Number(step) < 1) return bad('a step must be at least 1');
    // Let cron-parser expand the item in the right position, the other fields being "*".
    const probe = FIELDS.map((f) => (f.key === spec.key ? item : f.key === 'minute' ? '0' : '*')).join(' ');
    try {
      const fields = CronExpressionParser.parse(probe, { tz: 'UTC' }).fields;
      for (const v of fields[spec.key].values) {
        if (typeof v !== 'number') return bad(`${JSON.stringify(item)} is not supported`);
        values.add(spec.key === 'dayOfWeek' && v === 7 ? 0 : v);
      }
    } catch (err) {
      return bad(errorText(err));
    }
  }
  return [...values].sort((a, b) => a - b).join(',');
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function fail(detail: string): ScheduleParseResult {
  return { ok: false, detail };
}
