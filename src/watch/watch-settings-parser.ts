import type { WatchSettings } from './watch-policy.js';
import { parseDiffOptions } from './diff-options.js';

/** A schedule's `watch` as a client sends it, checked field by field; the detail names the field (`watch.…`). */
export type ParsedWatch = { ok: true; watch: WatchSettings | undefined } | { ok: false; detail: string };

const ratio = (value: unknown, field: string, fallback: number | null): number | null | string => {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1)
    return `watch.${field} must be a number from 0 to 1`;
  return value;
};

export function parseWatchSettings(input: unknown): ParsedWatch {
  if (input === undefined || input === null) return { ok: true, watch: undefined };
  if (typeof input !== 'object' || Array.isArray(input)) return { ok: false, detail: 'watch must be a JSON object' };
  const w = input as Record<string, unknown>;
  const unknown = Object.keys(w).filter(
    (k) => !['notifyOn', 'minTextChange', 'minPixelChange', 'ignoreSelectors', 'ignoreText'].includes(k),
  );
  if (unknown.length) return { ok: false, detail: `watch.${unknown[0]} is not a watch setting` };
  if (w.notifyOn !== undefined && w.notifyOn !== 'change')
    return { ok: false, detail: "watch.notifyOn must be 'change'" };
  const minText = ratio(w.minTextChange, 'minTextChange', 0);
  if (typeof minText === 'string') return { ok: false, detail: minText };
  const minPixel = ratio(w.minPixelChange, 'minPixelChange', null);
  if (typeof minPixel === 'string') return { ok: false, detail: minPixel };
  const options = parseDiffOptions(w, 'watch.');
  if (!options.ok) return { ok: false, detail: options.detail };
  return {
    ok: true,
    watch: { notifyOn: 'change', minTextChange: minText ?? 0, minPixelChange: minPixel, ...options.options },
  };
}
