import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The headers every answer carries, set in one place (docs/api.md, "Public endpoints"):
 *
 * - security headers on every response: `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`,
 *   a `frame-ancestors 'self'` CSP where a route set no CSP of its own (archived pages replay on the replay
 *   origin, src/api/replay-server.ts; nobody else may frame ours) with `X-Frame-Options: SAMEORIGIN` — `DENY`
 *   where the route's CSP says `frame-ancestors 'none'` —, `Vary: Accept` where the route negotiates JSON or
 *   HTML, and HSTS when the request
 *   came over https (directly, or as a trusted proxy says with X-Forwarded-Proto) or PUBLIC_BASE_URL is https;
 * - `Access-Control-Allow-Origin: *` on the public, credential-free reads: anyone may verify from a browser,
 *   and these answers never depend on a cookie or a key. Authenticated routes keep CORS_ORIGINS (cors.ts);
 * - Cache-Control on the key documents (they change only on rotation or a new TSA) and on the certificate,
 *   whose bytes never change once made.
 */
export const PUBLIC_READ_ROUTES: ReadonlySet<string> = new Set([
  '/v1/verify/:captureId',
  '/v1/verify/certificate',
  '/.well-known/signing-key',
  '/.well-known/signing-keys',
  '/.well-known/tsa-certificates',
  '/v1/captures/:captureId',
  '/v1/captures/:captureId/status',
  '/v1/captures/:captureId/artifacts/:name',
  '/v1/captures/:captureId/pdf',
  '/v1/captures/:captureId/session',
  '/v1/captures/:captureId/provenance',
  '/v1/captures/:captureId/certificate',
  // The transparency log: anyone may mirror and monitor it, from a browser too (docs/transparency.md).
  '/v1/log/checkpoint',
  '/v1/log/checkpoint.json',
  '/v1/log/key',
  '/v1/log/tile/*',
  '/v1/log/proof/inclusion',
  '/v1/log/proof/consistency',
]);

/** Routes that answer JSON or an HTML page by the request's Accept: a cache must key on it (RFC 9110 12.5.5). */
export const NEGOTIATED_ROUTES: ReadonlySet<string> = new Set([
  '/v1/verify/:captureId',
  '/v1/captures/:captureId/provenance',
]);

/** Seconds a key document may be cached: short, so a rotation reaches verifiers within minutes. */
export const KEY_DOCUMENT_MAX_AGE = 300;
const CACHE_CONTROL: Readonly<Record<string, string>> = {
  '/.well-known/signing-key': `public, max-age=${KEY_DOCUMENT_MAX_AGE}`,
  '/.well-known/signing-keys': `public, max-age=${KEY_DOCUMENT_MAX_AGE}`,
  '/.well-known/tsa-certificates': `public, max-age=${KEY_DOCUMENT_MAX_AGE}`,
  '/v1/captures/:captureId/certificate': 'public, max-age=31536000, immutable',
};

export const HSTS = 'max-age=31536000; includeSubDomains';

export function responseHeadersHook(opts: { publicBaseUrl: string }) {
  const httpsBase = opts.publicBaseUrl.startsWith('https:');
  return async (req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    reply.header('X-Content-Type-Options', 'nosniff');
    if (!reply.hasHeader('Referrer-Policy')) reply.header('Referrer-Policy', 'no-referrer');
    if (!reply.hasHeader('Content-Security-Policy')) reply.header('Content-Security-Policy', "frame-ancestors 'self'");
    // The legacy header says what the CSP says: a page nobody may frame is DENY, not SAMEORIGIN.
    reply.header(
      'X-Frame-Options',
      /frame-ancestors 'none'/.test(String(reply.getHeader('Content-Security-Policy'))) ? 'DENY' : 'SAMEORIGIN',
    );
    if (httpsBase || req.protocol === 'https') reply.header('Strict-Transport-Security', HSTS);

    const route = req.routeOptions.url ?? '';
    if (NEGOTIATED_ROUTES.has(route)) {
      const vary = reply.getHeader('Vary');
      reply.header('Vary', vary ? `${String(vary)}, Accept` : 'Accept');
    }
    const read =
      req.method === 'GET' || req.method === 'HEAD' || (req.method === 'POST' && route === '/v1/verify/certificate');
    if (read && PUBLIC_READ_ROUTES.has(route)) {
      reply.header('Access-Control-Allow-Origin', '*');
      if (!reply.hasHeader('Access-Control-Expose-Headers')) {
        reply.header('Access-Control-Expose-Headers', 'Content-Length, Content-Disposition, Retry-After, X-Request-Id');
      }
      const cache = CACHE_CONTROL[route];
      // Errors (404 before a certificate exists, 429, 503) are not cached.
      if (cache && reply.statusCode < 300) reply.header('Cache-Control', cache);
    }
    return payload;
  };
}
