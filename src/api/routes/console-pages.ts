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

/**
 * The console and its assets are served on PUBLIC_BASE_URL's host name only; a request by any other name (the replay
 * origin's, a loopback alias, an internal name) is redirected there. Cookies are shared by every port of a host name,
 * so a console opened on the replay origin's host would share its session cookies with the pages replayed there.
 * Behind a proxy the proxy must pass the Host it was asked for (or X-Forwarded-Host, with TRUST_PROXY).
 */
export function consoleHostCheck(publicBaseUrl: string) {
  const publicUrl = new URL(publicBaseUrl);
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.hostname.toLowerCase() === publicUrl.hostname) return;
    return reply.redirect(`${publicUrl.origin}${req.url}`, 307);
  };
}

export function consoleRoutes(opts: { replayOrigin: string; publicBaseUrl: string }) {
  const assets = consoleAssets();
  const shell = consoleShell({ replayOrigin: opts.replayOrigin });
  const csp = consoleCsp(opts.replayOrigin);
  const onPublicHost = consoleHostCheck(opts.publicBaseUrl);

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
    const page = { schema: { hide: true }, onRequest: onPublicHost };
    app.get('/console', page, sendShell);
    app.get('/console/*', page, sendShell);
    app.get(
      CONSOLE_SCRIPT_PATH,
      page,
      sendAsset((a) => a.script),
    );
    app.get(
      CONSOLE_STYLE_PATH,
      page,
      sendAsset((a) => a.style),
    );
  };
}
