import { z } from 'zod';
import type { Readiness } from '../../observability/readiness.js';
import type { TypedApp } from '../app.js';
import type { ServiceContext } from '../../application/service-context.js';
import { ANSWERS, problemResponses } from '../problem.js';
import { dateTime, uri } from '../schemas.js';
import type { StorageHealth } from '../../storage/artifact-store.js';

const legal = z.object({ terms: uri(), policy: uri() });
const storage = z
  .object({
    status: z.enum(['ok', 'degraded']),
    store: z.string().describe('Which store: the S3 bucket and endpoint.'),
    since: dateTime().optional().describe('Since when it has not answered.'),
    error: z.string().optional().describe('The last error.'),
  })
  .optional()
  .describe(
    "Extension: the object storage (S3) as last seen. 'degraded': it does not answer; downloads answer 503 with Retry-After and writes wait, while the service still admits captures, so /health itself stays 200.",
  );
/** spec 4.1 enumerates 'ok' alone; 'degraded' belongs to the 503 answer beside it, never to the 200's enum. */
const healthSchema = z.object({ status: z.enum(['ok']), legal, storage });
const degradedSchema = z.object({ status: z.enum(['degraded']), legal, storage });

/**
 * spec 4.1: a health check with links to the legal texts; 503 'degraded' while NATS or Postgres is unreachable.
 * An S3 outage is reported in `storage` beside them and keeps the 200: every API process shares the bucket, so a
 * load balancer taking them out for it would stop submissions and status reads that still work.
 */
export function healthRoutes(
  ctx: Pick<ServiceContext, 'config'>,
  ready: () => Promise<Readiness>,
  storageHealth: () => StorageHealth | null = () => null,
) {
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
        const storage = storageHealth();
        return reply.code(ok ? 200 : 503).send({
          status: ok ? 'ok' : 'degraded',
          legal: { terms: `${base}/legal/terms`, policy: `${base}/legal/policy` },
          ...(storage ? { storage } : {}),
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
