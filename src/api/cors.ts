import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpProblem } from './problem.js';

/**
 * CORS for POST /v1/captures only (spec 4.3, 4.4): origins on CORS_ORIGINS get the headers; a preflight from
 * any other origin is 403 without them. The batch endpoint is server-to-server and never gets CORS headers.
 */
export interface Cors {
  preflight(req: FastifyRequest, reply: FastifyReply): void;
  actual(req: FastifyRequest, reply: FastifyReply): void;
  /** Whether a browser page of this origin may call (POST /mcp refuses any other Origin). */
  allows(origin: string | undefined): origin is string;
}

export function createCors(allowed: readonly string[]): Cors {
  const origins = new Set(allowed.map((o) => o.replace(/\/+$/, '')));
  const allows = (origin: string | undefined): origin is string =>
    origin !== undefined && (origins.has(origin) || origins.has('*'));
  return {
    allows,
    preflight(req, reply) {
      const origin = req.headers.origin;
      if (!allows(origin)) {
        throw new HttpProblem(
          403,
          `Origin ${origin ?? '(none)'} is not allowed to call this API from a browser.`,
          'Forbidden',
        );
      }
      reply
        .header('Access-Control-Allow-Origin', origin)
        .header('Vary', 'Origin')
        .header('Access-Control-Allow-Methods', 'POST, OPTIONS')
        .header('Access-Control-Allow-Headers', 'Authorization, Content-Type')
        .header(
          'Access-Control-Expose-Headers',
          'X-Quota-Limit, X-Quota-Used, X-Quota-Remaining, Retry-After, X-Request-Id',
        )
        .header('Access-Control-Max-Age', '600');
    },
    actual(req, reply) {
      const origin = req.headers.origin;
      if (!allows(origin)) return;
      reply
        .header('Access-Control-Allow-Origin', origin)
        .header('Vary', 'Origin')
        .header(
          'Access-Control-Expose-Headers',
          'X-Quota-Limit, X-Quota-Used, X-Quota-Remaining, Retry-After, X-Request-Id',
        );
    },
  };
}
