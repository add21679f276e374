/**
 * feed-timeline (site-specific): a timeline or thread laid out as an ARIA feed (`role="feed"` with one
 * `article` per post — the pattern of Mastodon, Bluesky, X and others), often in a column that scrolls on its
 * own while the document does not. It brings each last post into view so the feed loads the next ones, and
 * opens each post's "show more replies / read more" controls as it goes, until the feed stops growing or the
 * behaviors' budget runs out; then it returns the column to the top.
 */
import { waitForNetworkQuiet } from '../settle.js';
import type { Behavior, BehaviorContext, BehaviorFindings } from './behavior.js';
import { expandControls } from './expand.js';

const FEED = '[role="feed"]';
/** The cap of the wait for quiet (ctx.quietWindowMs) after it. */
const ROUND_QUIET_CAP_MS = 1500;
const MAX_ROUNDS = 40;

// Page-side: the last post of each feed into view (its column scrolls with it); how many posts there are.
const TO_LAST_POST = `(async () => {
  let posts = 0;
  let busy = false;
  for (const feed of document.querySelectorAll('${FEED}')) {
    const items = feed.querySelectorAll('article, [role="article"]');
    posts += items.length;
    busy ||= feed.getAttribute('aria-busy') === 'true';
    items[items.length - 1]?.scrollIntoView({ block: 'end', behavior: 'instant' });
  }
  await new Promise((resolve) => { requestAnimationFrame(() => requestAnimationFrame(resolve)); setTimeout(resolve, 100); });
  return { posts, busy };
})()`;

const BACK_TO_TOP = `(() => {
  for (const feed of document.querySelectorAll('${FEED}')) {
    for (let el = feed; el; el = el.parentElement) if (el.scrollTop > 0) el.scrollTop = 0;
  }
  window.scrollTo({ top: 0, left: 0, behavior: 'instant' });
})()`;

export const feedTimeline: Behavior = {
  name: 'feed-timeline',
  matches: `document.querySelector('${FEED}') !== null`,
  run: followFeed,
  found: (did) => Number(did.posts) > 0 || Number(did.clicked) > 0,
};

async function followFeed(ctx: BehaviorContext): Promise<BehaviorFindings> {
  let rounds = 0;
  let clicked = 0;
  let posts = 0;
  let stillGrowing = false;
  try {
    for (;;) {
      const expanded = await expandControls(ctx, FEED);
      clicked += Number(expanded.clicked);
      const now = await ctx.evaluate<{ posts: number; busy: boolean }>(TO_LAST_POST);
      rounds++;
      await waitForNetworkQuiet(ctx.pending, {
        quietWindowMs: ctx.quietWindowMs,
        capMs: Math.max(ctx.quietWindowMs, Math.min(ROUND_QUIET_CAP_MS, ctx.left())),
        signal: ctx.signal,
      });
      const grew = now.posts > posts || now.busy;
      posts = now.posts;
      if (!grew) break;
      if (ctx.left() <= 0 || rounds >= MAX_ROUNDS || ctx.signal.aborted) {
        stillGrowing = true;
        break;
      }
    }
  } finally {
    await ctx.evaluate(BACK_TO_TOP).catch(() => {});
  }
  if (stillGrowing) ctx.notes.push(`the feed was still loading posts after ${rounds} rounds (${posts} posts)`);
  return { posts, rounds, clicked, stillGrowing };
}
