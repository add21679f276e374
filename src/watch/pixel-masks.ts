import type { CaptureSide, PixelsIgnored } from './capture-diff.js';
import type { Box } from './pixel-diff.js';

/**
 * For each ignoreSelector both captures recorded boxes for, the union of those boxes (the element where it was in
 * either capture) is left out in both images; a selector either capture did not record is said, not guessed.
 * The same for each ignoreText pattern and the boxes of its matches in the text (textBoxes).
 */
export function pixelMasks(
  base: Pick<CaptureSide, 'elementBoxes' | 'textBoxes'>,
  next: Pick<CaptureSide, 'elementBoxes' | 'textBoxes'>,
  selectors: readonly string[],
  patterns: readonly string[] = [],
): { ignoreBoxes: Box[]; ignored: PixelsIgnored } {
  const ignoreBoxes: Box[] = [];
  const ignored: PixelsIgnored = { masked: [], notRecorded: [], maskedText: [], textNotRecorded: [] };
  const mask = (
    keys: readonly string[],
    before: CaptureSide['elementBoxes'] | undefined,
    after: CaptureSide['elementBoxes'] | undefined,
    masked: string[],
    notRecorded: string[],
  ) => {
    for (const key of keys) {
      const a = before && Object.hasOwn(before, key) ? before[key] : null;
      const b = after && Object.hasOwn(after, key) ? after[key] : null;
      if (!a || !b) {
        notRecorded.push(key);
        continue;
      }
      masked.push(key);
      ignoreBoxes.push(...a, ...b);
    }
  };
  mask(selectors, base.elementBoxes, next.elementBoxes, ignored.masked, ignored.notRecorded);
  mask(patterns, base.textBoxes, next.textBoxes, ignored.maskedText, ignored.textNotRecorded);
  return { ignoreBoxes, ignored };
}
