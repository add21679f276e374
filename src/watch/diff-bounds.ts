/**
 * The bounds of a diff (docs/watch.md, Bounds): a diff runs over pages a tenant chose, so its work is bounded and
 * a diff that reaches a bound ends with a DiffBoundError naming it — 422 from the API, a comparison recorded as
 * bounded by the watch — never with a long computation. The patterns and selectors are bounded when submitted
 * (src/domain/pattern-bounds.ts); the time limit ends whatever those rules let through (src/watch/diff-thread.ts).
 */
export const DIFF_BOUNDS = {
  /** Blocks of visible text per page the text diff compares. */
  textBlocks: 20_000,
  /**
   * Blocks added plus removed the text diff follows (its Myers edit length): its work grows with the pages' length
   * times this, so two long pages that share little are refused rather than compared for minutes.
   */
  textEdits: 3_000,
} as const;

/** How long a diff may run, unless DIFF_TIME_LIMIT_MS says otherwise. */
export const DEFAULT_DIFF_TIME_LIMIT_MS = 20_000;

export type DiffBound = 'timeLimit' | 'memory' | 'textBlocks' | 'textEdits';

export class DiffBoundError extends Error {
  override name = 'DiffBoundError';
  constructor(
    readonly bound: DiffBound,
    detail: string,
  ) {
    super(detail);
  }
}
