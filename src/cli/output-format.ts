import { UsageError } from './cli-io.js';

/** Output helpers of the CLI: CSV (RFC 4180 quoting, `\n` line ends), aligned tables, and argument values. */

export type Cell = string | number | boolean | Date | null | undefined;

const cellText = (v: Cell): string =>
  v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : String(v);

/** One CSV field: quoted when it holds a comma, a quote, a line break or edge spaces; quotes doubled. */
export function csvField(v: Cell): string {
  const text = cellText(v);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (cells: Cell[]): string => `${cells.map(csvField).join(',')}\n`;

export function csv(header: string[], rows: Cell[][]): string {
  return [csvLine(header), ...rows.map(csvLine)].join('');
}

/** A plain-text table: columns padded to their widest cell, numbers right-aligned. */
export function table(header: string[], rows: Cell[][]): string {
  const text = rows.map((r) => r.map((c) => cellText(c).replace(/[\r\n\t]+/g, ' ')));
  const widths = header.map((h, i) => Math.max(h.length, ...text.map((r) => (r[i] ?? '').length)));
  const numeric = header.map(
    (_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || r[i] === null || r[i] === undefined),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...text.map(line)].map((l) => `${l}\n`).join('');
}

export const jsonLine = (value: unknown): string => `${JSON.stringify(value)}\n`;

const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** 'YYYY-MM' (a billing period, spec 8.2) or a UsageError naming the option. */
export function parsePeriod(value: string, option = '--period'): string {
  if (!PERIOD.test(value)) throw new UsageError(`${option} must be a month as YYYY-MM (e.g. 2025-03); got '${value}'`);
  return value;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 date or date-time; a date alone or a time without offset means UTC. */
export function parseInstant(value: string, option: string): Date {
  if (!ISO_INSTANT.test(value))
    throw new UsageError(
      `${option} must be an ISO 8601 date or date-time (e.g. 2025-03-01 or 2025-03-01T12:00:00Z); got '${value}'`,
    );
  const withZone = /T/.test(value) && !/(Z|[+-]\d{2}:?\d{2})$/.test(value) ? `${value}Z` : value;
  const d = new Date(withZone);
  if (Number.isNaN(d.getTime())) throw new UsageError(`${option} is not a valid date: '${value}'`);
  return d;
}

/** Seconds as '1h 02m', '3m 04s' or '12s'. */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}
