import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Pages served on loopback for capture tests: each path of `pages` answers its HTML; `other` may answer any
 * other path itself (and returns true when it did); everything else is a 404.
 *
 *   const site = await servePages({ '/a': '<p>a</p>' });   site.url('/a');   await site.close();
 */
export interface PageServer {
  url(path: string): string;
  close(): Promise<void>;
}

export async function servePages(
  pages: Record<string, string>,
  other: (path: string, res: ServerResponse) => boolean = () => false,
): Promise<PageServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (other(path, res)) return;
    const page = pages[path];
    if (page === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${base}${path}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
