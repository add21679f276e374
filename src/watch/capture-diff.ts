import { responseRecordsOfWarc, warcOfWacz } from '../archive/warc-reader.js';
import type { ComparisonSummary } from './watch-policy.js';
import { decodePng } from './diff-image.js';
import type { DiffOptions } from './diff-options.js';
import { diffHeaders, type HeaderDiff, type HeaderMap } from './header-diff.js';
import { type Box, diffPixels, type PixelDiff } from './pixel-diff.js';
import { diffResources, type ResourceDiff } from './resource-diff.js';
import { diffTextBlocks, type TextDiff } from './text-diff.js';
import { visibleTextBlocks } from './visible-text.js';
import { pixelMasks } from './pixel-masks.js';

export { pixelMasks } from './pixel-masks.js';

/**
 * What changed between two complete captures (docs/watch.md): the four parts — visible text, main-document
 * headers, resources, screenshot — each from the stored artifacts, never from a new render. `base` is the older
 * capture the caller compares against; the newer one is `capture`.
 */

export interface CaptureSide {
  captureId: string;
  url: string;
  /** Where the page ended after redirects, when recorded. */
  finalUrl?: string | null;
  completedAt: string;
  bundleHash: string | null;
  html: string | null;
  headers: HeaderMap | null;
  screenshot: Uint8Array | null;
  wacz: Uint8Array | null;
  /**
   * The boxes measured on this capture's screenshot per selector (captureSettings.elementBoxes.boxes):
   * a selector absent here was not recorded at capture time. Absent: none were.
   */
  elementBoxes?: Readonly<Record<string, readonly Box[]>> | null;
  /**
   * Likewise per recordTextBoxes pattern, the boxes of its matches in the visible text
   * (captureSettings.elementBoxes.textBoxes): a pattern absent here was not recorded. Absent: none were.
   */
  textBoxes?: Readonly<Record<string, readonly Box[]>> | null;
}

/**
 * Which ignoreSelectors were left out of the pixel comparison, and which could not be (not recorded by both);
 * likewise the ignoreText patterns (`maskedText`, `textNotRecorded`).
 */
export interface PixelsIgnored {
  masked: string[];
  notRecorded: string[];
  maskedText: string[];
  textNotRecorded: string[];
}

export type ScreenshotDiff = PixelDiff & { ignored: PixelsIgnored };

export interface CaptureDiff {
  base: SideSummary;
  capture: SideSummary;
  /** False when the two captures are of different URLs (allowed; said here). */
  sameUrl: boolean;
  options: DiffOptions;
  /** Any part changed (volatile headers aside). */
  changed: boolean;
  summary: DiffSummary;
  text: TextDiff | null;
  headers: HeaderDiff;
  resources: ResourceDiff | null;
  screenshot: ScreenshotDiff | null;
}

export interface SideSummary {
  captureId: string;
  url: string;
  completedAt: string;
  bundleHash: string | null;
}

/** The counts of a diff: what a comparison records and the notify rule reads (watch-policy.ts). */
export type DiffSummary = ComparisonSummary;

const side = (s: CaptureSide): SideSummary => ({
  captureId: s.captureId,
  url: s.url,
  completedAt: s.completedAt,
  bundleHash: s.bundleHash,
});

function diffScreenshots(base: CaptureSide, next: CaptureSide, options: DiffOptions): ScreenshotDiff {
  const { ignoreBoxes, ignored } = pixelMasks(base, next, options.ignoreSelectors, options.ignoreText);
  return { ...diffPixels(decodePng(base.screenshot!), decodePng(next.screenshot!), { ignoreBoxes }), ignored };
}

export async function diffCaptures(base: CaptureSide, next: CaptureSide, options: DiffOptions): Promise<CaptureDiff> {
  const text =
    base.html !== null && next.html !== null
      ? diffTextBlocks(visibleTextBlocks(base.html, options), visibleTextBlocks(next.html, options))
      : null;
  const headers = diffHeaders(base.headers, next.headers);
  const resources =
    base.wacz && next.wacz
      ? diffResources(
          await responseRecordsOfWarc(warcOfWacz(base.wacz)),
          await responseRecordsOfWarc(warcOfWacz(next.wacz)),
          [base.url, next.url, ...(base.finalUrl ? [base.finalUrl] : []), ...(next.finalUrl ? [next.finalUrl] : [])],
        )
      : null;
  const screenshot = base.screenshot && next.screenshot ? diffScreenshots(base, next, options) : null;
  const summary: DiffSummary = {
    textBlocksAdded: text?.added ?? 0,
    textBlocksRemoved: text?.removed ?? 0,
    textBlocksChanged: text?.changed ?? 0,
    textChangeRatio: text?.changeRatio ?? 0,
    headersChanged: headers.changes.length,
    resourcesAdded: resources?.added.length ?? 0,
    resourcesRemoved: resources?.removed.length ?? 0,
    resourcesChanged: resources?.changed.length ?? 0,
    pixelChangeRatio: screenshot?.changedRatio ?? 0,
    changedRegions: screenshot?.regionCount ?? 0,
  };
  const changed =
    (text?.changes.length ?? 0) > 0 ||
    headers.changes.length > 0 ||
    summary.resourcesAdded + summary.resourcesRemoved + summary.resourcesChanged > 0 ||
    (screenshot?.changedPixels ?? 0) > 0;
  return {
    base: side(base),
    capture: side(next),
    sameUrl: base.url === next.url,
    options,
    changed,
    summary,
    text,
    headers,
    resources,
    screenshot,
  };
}
