import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Static pages for the benchmarks, served as a file server serves them, with a 404 with a small HTML body for
 * anything else (the browser's /favicon.ico), as `python3 -m http.server` answers:
 * - /plain.html: the black-box figure's kind of page — one HTML file of text, taller than the
 *   viewport, no script, no stylesheet, no image. Nothing on it gives the settle phase, the scroll, consent
 *   detection or any behavior work to do.
 * - /animated.html: the same text under a box that a CSS animation moves without end — the browser draws a new
 *   frame all the time (the worst case of a session recording).
 */
export interface StaticPages {
  /** The plain page's URL (path /plain.html). */
  url: string;
  /** Any page's URL. */
  urlOf(path: '/plain.html' | '/animated.html'): string;
  /** Requests served, by path. */
  requests: string[];
  close(): Promise<void>;
}

const PARAGRAPH =
  'This is an ordinary paragraph of a plain static page. It holds nothing but text: no script, no image, ' +
  'no stylesheet and no banner, so a capture of it has nothing to wait for once the document has loaded. ';

/** About 2,300 CSS px tall at 1280 px: three viewports of text. */
export const PLAIN_PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>A plain static page</title></head>
<body><h1>A plain static page</h1>
${Array.from({ length: 40 }, (_, i) => `<p>${i + 1}. ${PARAGRAPH.repeat(2)}</p>`).join('\n')}
</body></html>
`;

export const ANIMATED_PAGE = PLAIN_PAGE.replace(
  '<body>',
  '<body><style>@keyframes m{from{transform:translateX(0)}to{transform:translateX(900px)}}' +
    '#box{width:200px;height:120px;background:#c33;animation:m 2s linear infinite alternate}</style><div id="box"></div>',
).replace('<title>A plain static page</title>', '<title>An animated page</title>');

const NOT_FOUND = `<!DOCTYPE html><html><head><title>Error response</title></head><body><h1>Error response</h1><p>Error code: 404</p><p>Message: File not found.</p></body></html>\n`;

const PAGES: Record<string, string> = { '/plain.html': PLAIN_PAGE, '/animated.html': ANIMATED_PAGE };

export async function startStaticPages(host = '127.0.0.1'): Promise<StaticPages> {
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(path);
    const page = PAGES[path];
    const [status, body] = page ? [200, page] : [404, NOT_FOUND];
    res.writeHead(status, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'Last-Modified': 'Wed, 25 Nov 2026 12:00:00 GMT',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/plain.html`,
    urlOf: (path) => `http://${host}:${port}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
