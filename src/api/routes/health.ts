import { z } from 'zod';
import type { Readiness } from '../../observability/readiness.js';
import type { TypedApp } from '../app.js';
import type { ServiceContext } from '../../application/service-context.js';
import { ANSWERS, problemResponses } from '../problem.js';
import { uri } from '../schemas.js';

const legal = z.object({ terms: uri(), policy: uri() });
/** spec 4.1 enumerates 'ok' alone; 'degraded' belongs to the 503 answer beside it, never to the 200's enum. */
const healthSchema = z.object({ status: z.enum(['ok']), legal });
const degradedSchema = z.object({ status: z.enum(['degraded']), legal });

/** spec 4.1: a health check with links to the legal texts; 503 'degraded' while NATS or Postgres is unreachable. */
export function healthRoutes(ctx: Pick<ServiceContext, 'config'>, ready: () => Promise<Readiness>) {
  const base = ctx.config.PUBLIC_BASE_URL;
  return async (app: TypedApp) => {
    app.get(
      '/health',
      {
        schema: {
          tags: ['health'],
          summary: 'Service health',
          operationId: 'getHealth',
          security: [],
          response: {
            200: healthSchema.describe("status 'ok' (spec 4.1)."),
            503: degradedSchema.describe("status 'degraded': NATS or Postgres is unreachable."),
            ...problemResponses(ANSWERS.internal),
          },
        },
      },
      async (_req, reply) => {
        const { ok } = await ready();
        return reply.code(ok ? 200 : 503).send({
          status: ok ? 'ok' : 'degraded',
          legal: { terms: `${base}/legal/terms`, policy: `${base}/legal/policy` },
        });
      },
    );
    app.get('/legal/terms', { schema: { hide: true } }, async (_req, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .send(
          'Capture Ledger terms of service: captures are made of public pages at the request of the tenant, who is responsible for what it submits.\n',
        ),
    );
    app.get('/legal/policy', { schema: { hide: true } }, async (_req, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .send(
          'Capture Ledger privacy policy: we store the pages you ask us to capture, your API key digests and usage counts; cookie and authorization values of captured pages are redacted in every artifact and bundle.\n',
        ),
    );
  };
}
