import { h } from './dom.js';

/** Dates in the viewer's time zone; the UTC instant on hover (title) and in the datetime attribute. */
const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function utcText(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, '')} UTC`;
}

export function time(iso: string | null | undefined): HTMLElement | string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return h('time', { datetime: d.toISOString(), title: utcText(iso) }, local.format(d));
}

const units = ['B', 'KB', 'MB', 'GB', 'TB'];
/** Bytes in decimal units, as the spec's quotas are written (1 GB, 50 GB). */
export function bytes(n: number): string {
  let v = n;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export const count = (n: number) => new Intl.NumberFormat().format(n);

/** The current calendar month, UTC (the quota period of spec 8.2). */
export const currentPeriod = () => new Date().toISOString().slice(0, 7);
