import { z } from 'zod';
import type { Vantage } from '../config/vantages.js';
import { listVantages } from './known-vantages.js';
import type { Corroborations } from './corroboration-service.js';
import { refusal } from '../domain/errors.js';
import { captureIdParams } from '../api/routes/captures.js';
import type { TypedApp } from '../api/app.js';
import { ANSWERS, problemResponses } from '../api/problem.js';
import type { TenantGuard } from '../api/tenant-auth.js';

/**
 * Extension routes: GET /v1/vantages, the vantage points a capture may name in `options.vantage`; and
 * GET /v1/captures/{id}/corroboration, the corroboration record of a corroborated set's member.
 */

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

const corroborationSchema = z
  .object({
    status: z.enum(['pending', 'complete']),
    id: z.string().describe('The set (cor_…).'),
    record: z
      .unknown()
      .optional()
      .describe("When 'complete': the comparison (docs/evidence.md, Corroborated captures)."),
    recordHash: z.string().optional().describe('sha256: of the RFC 8785 bytes of `record`.'),
    signature: z.unknown().optional().describe('Ed25519 by the signing key, over the corroboration message.'),
    timestamp: z.unknown().optional().describe('RFC 3161 token over recordHash.'),
    url: z.string().optional(),
    members: z.array(z.unknown()).optional().describe("When 'pending': each member and its status."),
  })
  .describe('Extension: pending until every member is complete or failed, then the signed record.');

export function vantageRoutes(guard: TenantGuard, vantages: readonly Vantage[], corroborations?: Corroborations) {
  return async (app: TypedApp) => {
    app.get(
      '/v1/captures/:captureId/corroboration',
      {
        onRequest: guard.perIp(),
        schema: {
          tags: ['captures'],
          summary: "A corroborated capture's corroboration record",
          operationId: 'getCaptureCorroboration',
          security: [],
          params: captureIdParams,
          response: {
            200: corroborationSchema,
            ...problemResponses({
              ...ANSWERS.perIp,
              ...ANSWERS.internal,
              404: 'Unknown capture, or not a member of a corroborated set.',
            }),
          },
        },
      },
      async (req) => {
        const answer = await corroborations?.forCapture(req.params.captureId);
        if (!answer) throw refusal(404, `Capture ${req.params.captureId} is not a member of a corroborated set.`);
        return answer;
      },
    );

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
              .describe('Extension: configured vantages, without the addresses or credentials of their proxies.'),
            ...problemResponses({ ...ANSWERS.tenantKey, ...ANSWERS.internal }),
          },
        },
      },
      async () => listVantages(vantages),
    );
  };
}
