import { z } from 'zod';
import type { Vantage } from '../../config/vantages.js';
import { listVantages } from '../../application/vantages.js';
import type { TypedApp } from '../app.js';
import { ANSWERS, problemResponses } from '../problem.js';
import type { TenantGuard } from '../tenant-auth.js';

/** GET /v1/vantages (issue 33 §1): the vantage points a capture may name in `options.vantage`. An extension route. */

const vantageSchema = z.object({
  id: z.string().describe('What `options.vantage` names.'),
  label: z.string(),
  region: z.string().describe('ISO 3166-1 country, or ISO 3166-2 subdivision (DE, US-CA).'),
  upstreamKind: z.enum(['http-connect', 'socks5']).describe("How the worker reaches the vantage's proxy."),
  expectedExit: z
    .string()
    .nullable()
    .describe('The address the vantage is configured to exit from; a capture exiting elsewhere fails.'),
  exitObserved: z
    .boolean()
    .describe('Whether each capture observes its exit address (an exit probe is configured); false: "not observed".'),
});

export function vantageRoutes(guard: TenantGuard, vantages: readonly Vantage[]) {
  return async (app: TypedApp) => {
    app.get(
      '/v1/vantages',
      {
        onRequest: guard.require('read'),
        schema: {
          tags: ['captures'],
          summary: 'List the vantage points captures can be made from',
          operationId: 'listVantages',
          security: [{ bearer: [] }],
          response: {
            200: z
              .object({ vantages: z.array(vantageSchema) })
              .describe(
                'Extension (issue 33): configured vantages, without the addresses or credentials of their proxies.',
              ),
            ...problemResponses({ ...ANSWERS.tenantKey, ...ANSWERS.internal }),
          },
        },
      },
      async () => listVantages(vantages),
    );
  };
}
