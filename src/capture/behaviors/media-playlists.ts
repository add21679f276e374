/**
 * HLS playlists (RFC 8216), read only as far as archiving needs: which renditions a multivariant playlist
 * offers, and which URLs a media playlist's segments are at (with its init segment and keys). Pure.
 */

export interface Rendition {
  url: string;
  bandwidth: number;
}

export type Playlist =
  | { kind: 'multivariant'; renditions: Rendition[] }
  | { kind: 'media'; segments: string[] }
  | { kind: 'unknown' };

export function parsePlaylist(text: string, playlistUrl: string): Playlist {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  if (lines[0] !== '#EXTM3U') return { kind: 'unknown' };
  const resolve = (uri: string): string | undefined => {
    try {
      return new URL(uri, playlistUrl).href;
    } catch {
      return undefined;
    }
  };
  const renditions: Rendition[] = [];
  const segments: string[] = [];
  let pendingBandwidth: number | undefined;
  for (const line of lines) {
    if (line.startsWith('#EXT-X-STREAM-INF:')) {
      pendingBandwidth = Number(/(?:^|[:,])BANDWIDTH=(\d+)/.exec(line)?.[1] ?? 0);
    } else if (line.startsWith('#EXT-X-MAP:') || line.startsWith('#EXT-X-KEY:')) {
      const uri = /URI="([^"]+)"/.exec(line)?.[1];
      const url = uri ? resolve(uri) : undefined;
      if (url) segments.push(url);
    } else if (line !== '' && !line.startsWith('#')) {
      const url = resolve(line);
      if (!url) continue;
      if (pendingBandwidth !== undefined) renditions.push({ url, bandwidth: pendingBandwidth });
      else segments.push(url);
      pendingBandwidth = undefined;
    }
  }
  if (renditions.length > 0) return { kind: 'multivariant', renditions };
  return { kind: 'media', segments: [...new Set(segments)] };
}

/** The rendition to archive whole: one the player already asked for, else the one of lowest bandwidth. */
export function chooseRendition(renditions: Rendition[], requested: Set<string>): Rendition | undefined {
  return renditions.find((r) => requested.has(r.url)) ?? [...renditions].sort((a, b) => a.bandwidth - b.bandwidth)[0];
}

/** Whether a URL names an HLS playlist by its path. */
export function isPlaylistUrl(url: string): boolean {
  try {
    return /\.m3u8$/i.test(new URL(url).pathname);
  } catch {
    return false;
  }
}
