import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { solidPng } from './fixture-site.js';

/**
 * A page that changes between captures for the watch tests, on 127.0.0.1:
 *   GET /watched   heading, a news paragraph, an image and a header that all follow `edition`, and an ad slot
 *                  (aside.ad) whose text rotates on every request, whatever the edition, as does its
 *                  x-request-id header (a volatile header that differs even when two captures fall in one second
 *                  and so share their Date)
 *   GET /photo.png a 60x40 PNG whose colour follows `edition`
 *   GET /hang      never answers (a capture that stays pending)
 * Set `site.edition` between captures; everything else stays byte for byte the same.
 */
export interface WatchSite {
  url(path: string): string;
  edition: number;
  /** While true, /watched never answers (a run that stays pending until the test fails it). */
  hang: boolean;
  close(): Promise<void>;
}

const COLOURS = [
  [200, 40, 40],
  [40, 40, 200],
  [40, 160, 40],
] as const;

export const newsOf = (edition: number) =>
  `Edition ${edition}: the council voted ${edition % 2 ? 'for' : 'against'} the plan.`;

export async function startWatchSite(): Promise<WatchSite> {
  let adRotation = 0;
  const sockets = new Set<Socket>();
  const site = { edition: 1, hang: false } as WatchSite;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/watched' && site.hang) return; // closed by close()
    if (path === '/watched') {
      adRotation++;
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'x-edition': String(site.edition),
        'x-request-id': `req-${adRotation}`,
        'cache-control': 'no-store',
      });
      res.end(`<!doctype html><html><head><title>Watched page</title>
<style>body{font:16px sans-serif;margin:20px;width:600px} .ad{background:#fe8;padding:8px;height:40px}</style></head>
<body><h1>Town news</h1>
<p id="news">${newsOf(site.edition)}</p>
<aside class="ad">Advert ${adRotation}: buy ${['apples', 'pears', 'plums', 'figs'][adRotation % 4]} now</aside>
<img src="/photo.png" width="60" height="40" alt="">
<p>Published by the town hall.</p></body></html>`);
      return;
    }
    if (path === '/photo.png') {
      res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' });
      res.end(solidPng(60, 40, COLOURS[(site.edition - 1) % COLOURS.length]!));
      return;
    }
    if (path === '/hang') return; // closed by close()
    res.writeHead(404).end();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  site.url = (p: string) => `http://127.0.0.1:${port}${p}`;
  site.close = () => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return site;
}
