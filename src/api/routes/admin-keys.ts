import { z } from 'zod';
import type { ApiKeys } from '../../application/api-keys.js';
import { requireJsonBody, type TypedApp } from '../app.js';
import type { OperatorGuard } from '../operator-auth.js';
import { ANSWERS, problemResponses } from '../problem.js';
import { dateTime, keyHashParam, nameSchema, scopeSchema, tenantIdSchema } from '../schemas.js';
import { SUBJECTS } from '../../infra/topology.js';

/** Operator key endpoints (spec 4.11, first three rows; 3.2; 5). */

export const REVOCATION_SUBJECT = SUBJECTS.keyRevoked.subject;

const createBody = z.object({
  tenantId: tenantIdSchema,
  scopes: z.array(scopeSchema, { error: 'must be a non-empty array' }).min(1, 'must be a non-empty array'),
  name: nameSchema,
});

const listQuery = z.object({
  tenant: z.string().optional(),
  include: z.enum(['revoked'], { error: "must be 'revoked' when given" }).optional(),
});

/** spec 2.8, as listed: never the raw key. */
const keyRecordSchema = z.object({
  keyHash: z.string().describe('SHA-256 hex of the raw key; identifies it for revocation.'),
  tenantId: z.string(),
  scopes: z.array(scopeSchema),
  name: z.string(),
  createdAt: dateTime(),
  createdBy: z.string().describe("Currently always 'admin'."),
  revoked: z.literal(true).optional().describe('Present and true when revoked.'),
  revokedAt: dateTime().optional().describe('Present only when revoked.'),
});

const createdSchema = z
  .object({
    key: z.string().describe('The raw key (svc_live_…); shown only in this response.'),
    keyHash: z.string(),
    tenantId: z.string(),
    scopes: z.array(scopeSchema),
    name: z.string(),
    createdAt: dateTime(),
    warning: z.string(),
  })
  .describe('The new key (spec 4.11).');

const revokedSchema = keyRecordSchema
  .extend({ revoked: z.literal(true), revokedAt: dateTime() })
  .describe('The revocation record; the same on a repeat (spec 3.2).');

/** Every key endpoint: the per-IP limit, then the admin credential (spec 4.11). */
const KEY_ENDPOINT_ANSWERS = {
  ...ANSWERS.adminKey,
  ...ANSWERS.internal,
  429: 'More than 5 requests in 60 s from this address to the key endpoints (spec 4.11), or 5 failed admin credentials from it in 60 s on any operator route.',
} as const;

export function adminKeyRoutes(operator: OperatorGuard, keys: ApiKeys) {
  return async (app: TypedApp) => {
    // spec 4.11: 5 requests per 60 s per IP, checked before the credential.
    app.addHook('onRequest', operator.keyEndpoints());

    app.post(
      '/v1/admin/keys',
      {
        preValidation: requireJsonBody,
        schema: {
          tags: ['admin'],
          summary: 'Create a tenant API key',
          operationId: 'createApiKey',
          security: [{ bearer: [] }],
          body: createBody,
          response: {
            201: createdSchema,
            ...problemResponses({
              ...KEY_ENDPOINT_ANSWERS,
              ...ANSWERS.jsonBody,
              400: 'Invalid tenantId, scopes or name; the detail names the field (spec 7.2).',
              409: 'A key with this hash already exists.',
            }),
          },
        },
      },
      async (req, reply) => reply.code(201).send(await keys.create(req.id, req.body)),
    );

    app.get(
      '/v1/admin/keys',
      {
        schema: {
          tags: ['admin'],
          summary: 'List tenant API keys',
          operationId: 'listApiKeys',
          security: [{ bearer: [] }],
          querystring: listQuery,
          response: {
            200: z.object({ data: z.array(keyRecordSchema) }).describe('Key records; never raw keys (spec 4.11).'),
            ...problemResponses({ ...KEY_ENDPOINT_ANSWERS, 400: "include is not 'revoked'." }),
          },
        },
      },
      async (req) => keys.list({ tenantId: req.query.tenant, includeRevoked: req.query.include === 'revoked' }),
    );

    app.delete(
      '/v1/admin/keys/:keyHash',
      {
        schema: {
          tags: ['admin'],
          summary: 'Revoke a tenant API key',
          operationId: 'revokeApiKey',
          security: [{ bearer: [] }],
          // A keyHash that is not 64 hex characters names no key (404, not 400).
          params: z.object({ keyHash: keyHashParam('64 hex characters (spec 4.11).') }),
          response: {
            200: revokedSchema,
            ...problemResponses({ ...KEY_ENDPOINT_ANSWERS, 404: 'No key with this keyHash.' }),
          },
        },
      },
      async (req) => keys.revoke(req.id, req.params.keyHash),
    );
  };
}
