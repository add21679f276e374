/**
 * auto-play: each video and audio element, in every frame (cross-site ones too), is muted and played until
 * it has buffered to its end or for a few seconds, so that the player fetches a rendition replay can play.
 * Then what playing alone does not leave whole is fetched whole: a progressive file the player read in
 * byte ranges (Range requests, 206 answers replay cannot use) is fetched once without a range, of an HLS
 * stream the playlist and every segment of one rendition (the one the player chose, else the smallest), and
 * of a DASH stream the manifest and every segment of one representation per adaptation set.
 * A page without media costs one evaluation per frame.
 */
import type { Frame } from 'puppeteer-core';
import type { Behavior, BehaviorContext, BehaviorFindings } from './behavior.js';
import { chooseRepresentations, isManifestUrl, parseMpd } from './dash-manifest.js';
import { chooseRendition, isPlaylistUrl, parsePlaylist } from './media-playlists.js';
import { fetchInFrame, fetchInPage } from './page-fetch.js';

/** How long one element plays at most (it stops earlier once buffered to its end). */
const PLAY_MS = 6000;
/** Segments of one stream fetched at most. */
const MAX_SEGMENTS = 600;

// Page-side, in the frame's own world: media elements must be played where the page's player runs.
// Returns each element's source (progressive files to fetch whole) and what happened.
const PLAY_ALL = `(async (budgetMs) => {
  const media = [...document.querySelectorAll('video, audio')];
  if (media.length === 0) return { elements: 0, played: 0, buffered: 0, sources: [] };
  const deadline = performance.now() + budgetMs;
  const bufferedToEnd = (m) => Number.isFinite(m.duration) && m.duration > 0 && m.buffered.length > 0 &&
    m.buffered.end(m.buffered.length - 1) >= m.duration - 0.25;
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  let played = 0;
  let buffered = 0;
  await Promise.all(media.map(async (m) => {
    m.muted = true;
    m.preload = 'auto';
    try {
      await Promise.race([m.play(), sleep(Math.max(0, deadline - performance.now()))]);
      played++;
    } catch {
      try { m.load(); } catch {}
    }
    const until = Math.min(deadline, performance.now() + budgetMs);
    // An element with no source (a player that never attached one) has nothing to wait for.
    while (performance.now() < until && m.currentSrc && !m.ended && !bufferedToEnd(m) && !m.error) await sleep(100);
    if (bufferedToEnd(m) || m.ended) buffered++;
    m.pause();
  }));
  const sources = [];
  for (const m of media) {
    const src = m.currentSrc || m.src;
    if (src && /^https?:/.test(src)) sources.push(src);
    for (const s of m.querySelectorAll('source[src]')) if (/^https?:/.test(s.src)) sources.push(s.src);
  }
  return { elements: media.length, played, buffered, sources };
})`;

interface FramePlay {
  elements: number;
  played: number;
  buffered: number;
  sources: string[];
}

export const autoPlay: Behavior = {
  name: 'auto-play',
  run: playMedia,
  found: (did) => Number(did.elements) > 0 || Number(did.playlists ?? 0) > 0,
};

async function playMedia(ctx: BehaviorContext): Promise<BehaviorFindings> {
  const playMs = Math.min(PLAY_MS, ctx.left());
  const frames = ctx.page.frames().filter((frame) => !frame.detached);
  const plays = await Promise.all(frames.map((frame) => playInFrame(frame, playMs)));
  const elements = plays.reduce((sum, p) => sum + p.elements, 0);
  if (elements === 0) return { elements: 0 };
  const sources = [...new Set(plays.flatMap((p) => p.sources))];
  const hls = await archiveStreams(ctx, sources);
  // Progressive files the player read only in parts (206) are fetched whole, from the frame that plays them.
  const complete = ctx.completeUrls();
  const wholes = await Promise.all(
    frames.map((frame, i) =>
      fetchInFrame(
        frame,
        plays[i]!.sources.filter((url) => !isPlaylistUrl(url) && !isManifestUrl(url) && !complete.has(url)),
        ctx.left(),
      ),
    ),
  );
  return {
    elements,
    framesWithMedia: plays.filter((p) => p.elements > 0).length,
    played: plays.reduce((sum, p) => sum + p.played, 0),
    bufferedToEnd: plays.reduce((sum, p) => sum + p.buffered, 0),
    filesFetchedWhole: wholes.reduce((sum, w) => sum + w.fetched, 0),
    playlists: hls.playlists,
    segmentsFetched: hls.segmentsFetched,
  };
}

async function playInFrame(frame: Frame, playMs: number): Promise<FramePlay> {
  try {
    return (await frame.evaluate(`${PLAY_ALL}(${Math.round(playMs)})`)) as FramePlay;
  } catch {
    // A frame that went away or navigated meanwhile has nothing to play.
    return { elements: 0, played: 0, buffered: 0, sources: [] };
  }
}

/**
 * HLS: each playlist the page asked for (or a media element names) is read. Of a multivariant playlist one
 * rendition is kept — the one the player chose, else the smallest; a media playlist no multivariant one names
 * is kept too. Every segment of what is kept that the page has no whole response for is then fetched.
 */
async function archiveStreams(
  ctx: BehaviorContext,
  sources: string[],
): Promise<{ playlists: number; segmentsFetched: number }> {
  const requested = ctx.requestedUrls();
  const found = [...new Set([...sources, ...requested].filter(isPlaylistUrl))];
  const manifests = [...new Set([...sources, ...requested].filter(isManifestUrl))];
  if (found.length === 0 && manifests.length === 0) return { playlists: 0, segmentsFetched: 0 };
  const media = new Map<string, string[]>();
  const named = new Set<string>();
  const kept = new Set<string>();
  let read = 0;
  let toRead = found;
  while (toRead.length > 0 && ctx.left() > 0) {
    const { texts } = await fetchInPage(ctx, toRead, { asText: true });
    const next: string[] = [];
    for (const [i, text] of texts.entries()) {
      if (text === null) continue;
      read++;
      const url = toRead[i]!;
      const playlist = parsePlaylist(text, url);
      if (playlist.kind === 'media') media.set(url, playlist.segments);
      if (playlist.kind === 'multivariant') {
        for (const r of playlist.renditions) named.add(r.url);
        const chosen = chooseRendition(playlist.renditions, requested);
        if (!chosen) continue;
        kept.add(chosen.url);
        if (!media.has(chosen.url) && !toRead.includes(chosen.url)) next.push(chosen.url);
      }
    }
    toRead = [...new Set(next)];
  }
  for (const url of media.keys()) if (!named.has(url)) kept.add(url);
  const segments = [...kept].flatMap((url) => media.get(url) ?? []);
  // DASH: of each adaptation set (video, audio …) one representation, the one the player used or the smallest.
  if (manifests.length > 0 && ctx.left() > 0) {
    const { texts } = await fetchInPage(ctx, manifests, { asText: true });
    for (const [i, text] of texts.entries()) {
      if (text === null) continue;
      read++;
      for (const chosen of chooseRepresentations(parseMpd(text, manifests[i]!), requested))
        segments.push(...chosen.segments);
    }
  }
  const complete = ctx.completeUrls();
  const missing = [...new Set(segments)].filter((url) => !complete.has(url));
  if (missing.length > MAX_SEGMENTS)
    ctx.notes.push(`auto-play fetched ${MAX_SEGMENTS} of the ${missing.length} segments of the page's streams`);
  const fetched = await fetchInPage(ctx, missing.slice(0, MAX_SEGMENTS));
  return { playlists: read, segmentsFetched: fetched.fetched };
}
