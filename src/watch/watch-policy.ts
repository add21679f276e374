import type { CaptureOptions } from '../domain/capture-options.js';

/**
 * A schedule's watch (docs/watch.md): each run is compared with the previous complete run and, when it
 * changed beyond these thresholds, a `capture.changed` webhook event fires. Pure: the rule is `notifies`.
 */
export interface WatchSettings {
  notifyOn: 'change';
  /** Share of text blocks (0–1) that must be added, removed or changed; 0: any text change. */
  minTextChange: number;
  /** Share of screenshot pixels (0–1) that must change; null: pixels alone never notify (ads, anti-aliasing). */
  minPixelChange: number | null;
  ignoreSelectors: string[];
  ignoreText: string[];
}

/** The counts of a diff a comparison records (src/watch/capture-diff.ts computes them). */
export interface ComparisonSummary {
  textBlocksAdded: number;
  textBlocksRemoved: number;
  textBlocksChanged: number;
  textChangeRatio: number;
  headersChanged: number;
  resourcesAdded: number;
  resourcesRemoved: number;
  resourcesChanged: number;
  pixelChangeRatio: number;
  changedRegions: number;
}

/**
 * Whether a run that differs like `s` from the one before is a change the watch tells about. `allMasked`: every one
 * of the watch's ignoreSelectors and ignoreText patterns (at least one) was left out of the pixel comparison (both
 * runs recorded its boxes);
 * then the pixels that changed are the page's own and count without a minPixelChange, as any text change does.
 * Otherwise pixels alone notify only beyond minPixelChange, when it is set (a rotating ad would notify every run).
 */
export function notifies(watch: WatchSettings, s: ComparisonSummary, allMasked = false): boolean {
  const textBlocks = s.textBlocksAdded + s.textBlocksRemoved + s.textBlocksChanged;
  const text = textBlocks > 0 && s.textChangeRatio >= watch.minTextChange;
  const minPixelChange =
    watch.minPixelChange ?? (allMasked && watch.ignoreSelectors.length + watch.ignoreText.length > 0 ? 0 : null);
  const pixels = minPixelChange !== null && s.pixelChangeRatio > 0 && s.pixelChangeRatio >= minPixelChange;
  const headers = s.headersChanged > 0;
  // Only a resource whose bytes changed under the same URL: URLs that come and go (cache-busters, trackers, a
  // favicon fetched or not) are in the diff but too noisy to notify on.
  const resources = s.resourcesChanged > 0;
  return text || pixels || headers || resources;
}

/**
 * The options a watched schedule's runs are captured with: its own, plus `recordBoxes` for the watch's
 * ignoreSelectors and `recordTextBoxes` for its ignoreText, so every run records where those elements and that
 * text were on its screenshot and the diff can leave them out of the pixel comparison (docs/watch.md).
 */
export function watchedRunOptions(
  options: CaptureOptions | undefined,
  watch: Pick<WatchSettings, 'ignoreSelectors' | 'ignoreText'> | undefined,
): CaptureOptions | undefined {
  if (!watch || (watch.ignoreSelectors.length === 0 && watch.ignoreText.length === 0)) return options;
  const out: CaptureOptions = { ...options };
  if (watch.ignoreSelectors.length > 0)
    out.recordBoxes = [...new Set([...(options?.recordBoxes ?? []), ...watch.ignoreSelectors])];
  if (watch.ignoreText.length > 0)
    out.recordTextBoxes = [...new Set([...(options?.recordTextBoxes ?? []), ...watch.ignoreText])];
  return out;
}
