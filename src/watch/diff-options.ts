import { patternProblem, selectorProblem } from '../domain/capture-options.js';

/**
 * What a diff leaves out (docs/watch.md): `ignoreSelectors` — CSS selectors of elements whose text is not compared
 * (a rotating ad slot, a clock) — and `ignoreText` — regular expressions whose matches are removed from every block
 * of text before blocks are compared (a "last updated" line). Both come from a query string or a schedule's watch
 * settings; a bad one is refused naming the field, never thrown at the diff.
 */
export interface DiffOptions {
  ignoreSelectors: string[];
  ignoreText: string[];
}

export const NO_DIFF_OPTIONS: DiffOptions = { ignoreSelectors: [], ignoreText: [] };

/** Bounds on what a caller may ask for: each pattern runs over every block of both pages. */
export const MAX_DIFF_PATTERNS = 20;
export const MAX_PATTERN_LENGTH = 200;

export type ParsedDiffOptions = { ok: true; options: DiffOptions } | { ok: false; field: string; detail: string };

const list = (value: unknown): unknown[] | null =>
  value === undefined || value === null
    ? []
    : Array.isArray(value)
      ? value
      : typeof value === 'string'
        ? [value]
        : null;

/** Checks each selector compiles and each pattern is a valid regular expression; `prefix` names the fields (`watch.`). */
export function parseDiffOptions(
  input: { ignoreSelectors?: unknown; ignoreText?: unknown },
  prefix = '',
): ParsedDiffOptions {
  const selectors = list(input.ignoreSelectors);
  const patterns = list(input.ignoreText);
  for (const [name, values] of [
    ['ignoreSelectors', selectors],
    ['ignoreText', patterns],
  ] as const) {
    const field = `${prefix}${name}`;
    if (values === null) return { ok: false, field, detail: `${field} must be a string or a list of strings` };
    if (values.length > MAX_DIFF_PATTERNS)
      return { ok: false, field, detail: `${field} takes at most ${MAX_DIFF_PATTERNS} entries` };
    for (const v of values) {
      if (typeof v !== 'string' || v.trim() === '' || v.length > MAX_PATTERN_LENGTH)
        return {
          ok: false,
          field,
          detail: `${field} entries must be non-empty strings of at most ${MAX_PATTERN_LENGTH} characters`,
        };
      const problem = name === 'ignoreSelectors' ? selectorProblem(v) : patternProblem(v);
      if (problem) return { ok: false, field, detail: `${field}: '${v}' is not valid: ${problem}` };
    }
  }
  return {
    ok: true,
    options: { ignoreSelectors: (selectors as string[]).map((s) => s.trim()), ignoreText: patterns as string[] },
  };
}
