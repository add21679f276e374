/**
 * Every behavior, by name, in the order a capture runs them: the site-specific ones first (they know the
 * layout), then scroll (lazy content, more posts), open "show more", play the media, and last fetch what the
 * page names but did not load (it sees what the others brought in). A new site-specific behavior is one module
 * with a `matches` rule, added here and to BEHAVIOR_NAMES (domain/capture-options.ts).
 */
import type { BehaviorName } from '../../domain/capture-options.js';
import { autoFetch } from './auto-fetch.js';
import { autoPlay } from './auto-play.js';
import { autoScroll } from './auto-scroll.js';
import type { Behavior } from './behavior.js';
import { expand } from './expand.js';
import { feedTimeline } from './feed-timeline.js';

export const BEHAVIORS_IN_ORDER: readonly Behavior[] = [feedTimeline, autoScroll, expand, autoPlay, autoFetch];

/** Every name has its behavior (checked by the type). */
const BY_NAME: Readonly<Record<BehaviorName, Behavior>> = Object.fromEntries(
  BEHAVIORS_IN_ORDER.map((b) => [b.name, b]),
) as Record<BehaviorName, Behavior>;

/** The chosen behaviors, in run order. */
export function behaviorsFor(names: readonly BehaviorName[]): Behavior[] {
  const chosen = new Set(names);
  return BEHAVIORS_IN_ORDER.filter((b) => chosen.has(b.name) && BY_NAME[b.name] === b);
}
