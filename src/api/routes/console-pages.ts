import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TypedApp } from '../app.js';
import { type ConsoleAsset, consoleAssets, CONSOLE_SCRIPT_PATH, CONSOLE_STYLE_PATH } from '../console-assets.js';
import { consoleCsp, consoleShell } from '../console-page.js';

/**
 * The console (docs/console.md): the HTML shell at /console and at every page path under it (the browser routes by
 * path), and its two assets. It is one more client of the documented API (DESIGN decision 17): nothing here reads a
 * store or decides anything. /console/session belongs to the sign-in routes; a path this plugin does not own
 * (that one, an unknown asset) is a 404 here, so a static route registered for it elsewhere always wins.
 */
const NOT_PAGES = /^\/console\/(session|assets)(\/|$)/;

export function consoleRoutes(opts: { replayOrigin: string }) {
  const assets = consoleAssets();
  const shell = consoleShell({ replayOrigin: opts.replayOrigin });
  const csp = consoleCsp(opts.replayOrigin);

  const sendShell = async (req: FastifyRequest, reply: FastifyReply) => {
    if (NOT_PAGES.test(req.url.split('?')[0]!)) return reply.callNotFound();
    return reply
      .header('Content-Security-Policy', csp)
      .header('Cache-Control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(shell);
  };

  const sendAsset = (pick: (a: Awaited<ReturnType<typeof assets.get>>) => ConsoleAsset) => {
    return async (req: FastifyRequest, reply: FastifyReply) => {
      const asset = pick(await assets.get());
      reply.header('ETag', asset.etag).header('Cache-Control', 'no-cache');
      const match = String(req.headers['if-none-match'] ?? '')
        .split(',')
        .some((tag) => tag.trim() === asset.etag);
      if (match) return reply.code(304).send();
      return reply.type(asset.contentType).send(Buffer.from(asset.bytes));
    };
  };

  return async (app: TypedApp) => {
    app.get('/console', { schema: { hide: true } }, sendShell);
    app.get('/console/*', { schema: { hide: true } }, sendShell);
    app.get(
      CONSOLE_SCRIPT_PATH,
      { schema: { hide: true } },
      sendAsset((a) => a.script),
    );
    app.get(
      CONSOLE_STYLE_PATH,
      { schema: { hide: true } },
      sendAsset((a) => a.style),
    );
  };
}
