/**
 * A schedule's watch (issue 32, docs/watch.md): each run is compared with the previous complete run and, when it
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

/** Whether a run that differs like `s` from the one before is a change the watch tells about. */
export function notifies(watch: WatchSettings, s: ComparisonSummary): boolean {
  const textBlocks = s.textBlocksAdded + s.textBlocksRemoved + s.textBlocksChanged;
  const text = textBlocks > 0 && s.textChangeRatio >= watch.minTextChange;
  const pixels = watch.minPixelChange !== null && s.pixelChangeRatio > 0 && s.pixelChangeRatio >= watch.minPixelChange;
  const headers = s.headersChanged > 0;
  // Only a resource whose bytes changed under the same URL: URLs that come and go (cache-busters, trackers, a
  // favicon fetched or not) are in the diff but too noisy to notify on.
  const resources = s.resourcesChanged > 0;
  return text || pixels || headers || resources;
}
