import { diffArrays } from 'diff';
import { DIFF_BOUNDS, DiffBoundError } from './diff-bounds.js';

/**
 * The text part of a diff: two lists of blocks (visible-text.ts) compared in order. A run of removed blocks
 * followed by a run of added ones at the same place pairs up, one to one, as changed blocks; what is left over is
 * added or removed. `changeRatio` is the share of blocks touched, of the larger page: what a watch's minTextChange
 * is compared with. Bounded (diff-bounds.ts): more than DIFF_BOUNDS.textBlocks blocks on a page, or more than
 * DIFF_BOUNDS.textEdits blocks added and removed, is a DiffBoundError, found before the quadratic work is done.
 */

export type TextChange =
  | { kind: 'added'; index: number; text: string }
  | { kind: 'removed'; baseIndex: number; text: string }
  | { kind: 'changed'; baseIndex: number; index: number; before: string; after: string };

export interface TextDiff {
  baseBlocks: number;
  blocks: number;
  added: number;
  removed: number;
  changed: number;
  changeRatio: number;
  changes: TextChange[];
}

export function diffTextBlocks(
  base: readonly string[],
  next: readonly string[],
  bounds: { textBlocks: number; textEdits: number } = DIFF_BOUNDS,
): TextDiff {
  const most = Math.max(base.length, next.length);
  if (most > bounds.textBlocks)
    throw new DiffBoundError(
      'textBlocks',
      `a page has ${most} blocks of text; a diff compares at most ${bounds.textBlocks} per page`,
    );
  const parts = diffArrays(base as string[], next as string[], { maxEditLength: bounds.textEdits });
  if (!parts)
    throw new DiffBoundError(
      'textEdits',
      `more than ${bounds.textEdits} blocks of text were added or removed between the pages; a diff follows at most ${bounds.textEdits}`,
    );
  const changes: TextChange[] = [];
  let baseIndex = 0;
  let index = 0;
  let removedRun: string[] = [];
  let addedRun: string[] = [];
  const settle = () => {
    const paired = Math.min(removedRun.length, addedRun.length);
    const firstBase = baseIndex - removedRun.length;
    const firstNext = index - addedRun.length;
    for (let i = 0; i < paired; i++)
      changes.push({
        kind: 'changed',
        baseIndex: firstBase + i,
        index: firstNext + i,
        before: removedRun[i]!,
        after: addedRun[i]!,
      });
    for (let i = paired; i < removedRun.length; i++)
      changes.push({ kind: 'removed', baseIndex: firstBase + i, text: removedRun[i]! });
    for (let i = paired; i < addedRun.length; i++)
      changes.push({ kind: 'added', index: firstNext + i, text: addedRun[i]! });
    removedRun = [];
    addedRun = [];
  };
  for (const part of parts) {
    if (part.removed) {
      if (addedRun.length) settle();
      removedRun.push(...part.value);
      baseIndex += part.value.length;
    } else if (part.added) {
      addedRun.push(...part.value);
      index += part.value.length;
    } else {
      settle();
      baseIndex += part.value.length;
      index += part.value.length;
    }
  }
  settle();
  const count = (kind: TextChange['kind']) => changes.filter((c) => c.kind === kind).length;
  const touched = changes.length;
  const larger = Math.max(base.length, next.length);
  return {
    baseBlocks: base.length,
    blocks: next.length,
    added: count('added'),
    removed: count('removed'),
    changed: count('changed'),
    changeRatio: larger === 0 ? 0 : Math.min(1, touched / larger),
    changes,
  };
}
