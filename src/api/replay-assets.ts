/**
 * ReplayWeb.page's embeddable viewer (npm `replaywebpage`: ui.js and its service worker sw.js), served only by the
 * replay origin (src/api/replay-server.ts), never by the API, so the verification page replays a bundle with no
 * outside network and no archived script ever runs on the verifier's origin. The service worker's scope is the
 * directory it is served from: /replay/ on the replay origin holds sw.js, and the viewer's replay iframe lives under it.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const REPLAY_BASE = '/replay/';

export interface ReplayAssets {
  /** Bytes of ui.js or sw.js (read once, then kept). */
  get(name: 'ui.js' | 'sw.js'): Promise<Buffer>;
}

export function replayAssets(): ReplayAssets {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('replaywebpage/index.html'));
  const cache = new Map<string, Promise<Buffer>>();
  return {
    get(name) {
      let bytes = cache.get(name);
      if (!bytes) {
        bytes = readFile(join(dir, name));
        bytes.catch(() => cache.delete(name));
        cache.set(name, bytes);
      }
      return bytes;
    },
  };
}
