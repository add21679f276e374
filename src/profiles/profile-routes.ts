import { z } from 'zod';
import { requireJsonBody, type TypedApp } from '../api/app.js';
import { ANSWERS, problemResponses } from '../api/problem.js';
import { type RouteRegistrar, registerRoutes } from '../api/route-registrar.js';
import { dateTime, idParam, nameSchema } from '../api/schemas.js';
import { callerOf, type TenantGuard } from '../api/tenant-auth.js';
import type { Profiles } from './profiles-service.js';

/**
 * Browser profiles (docs/profiles.md): `/v1/profiles`, scope `capture` for managing and for using them (the spec's
 * scopes are fixed; a key that can capture signed in can as well replace what it captures with). Answers never
 * hold a cookie or storage value.
 */

export interface ProfileRouteDeps {
  guard: TenantGuard;
  profiles: Profiles;
}

const contentsSchema = z
  .union([z.record(z.string(), z.unknown()), z.array(z.unknown()), z.string()], {
    error: 'must be a storageState object, an array of cookies or the text of a cookies.txt',
  })
  .describe(
    "The signed-in browser's state: Playwright's storageState ({cookies, origins}), an array of cookies as browser extensions export them (EditThisCookie, Cookie-Editor), or the text of a Netscape cookies.txt. At most 3000 cookies and 200 origins; read, sealed and never shown again.",
  );

const createBody = z.object(
  { name: nameSchema, contents: contentsSchema },
  { error: 'must be a JSON object with name and contents' },
);
const renameBody = z.object({ name: nameSchema }, { error: 'must be a JSON object with name' });
const contentsBody = z.object({ contents: contentsSchema }, { error: 'must be a JSON object with contents' });

const profileSchema = z
  .object({
    id: z.string().describe('prf_<id>'),
    name: z.string(),
    version: z
      .number()
      .int()
      .describe('1 when created; each new contents adds one. A capture records the version it used.'),
    sites: z.array(z.string()).describe('Registrable domains the profile holds cookies or storage for.'),
    cookieCount: z.number().int(),
    originCount: z.number().int().describe('Origins with localStorage.'),
    createdAt: dateTime(),
    updatedAt: dateTime(),
    createdBy: z.string().describe('key:<keyHash>, oidc:<provider>:<subject> or admin.'),
    lastUsedAt: dateTime().nullable().describe('When a capture last used it; null: never.'),
  })
  .describe('A browser profile: what it covers, never its cookie or storage values.');

const params = z.object({ profileId: idParam('profile', 'prf_<id>') });
const ANSWERS_OF_PROFILES = { ...ANSWERS.tenantKey, ...ANSWERS.internal } as const;
const unknownProfile = { 404: 'No such profile for this tenant.' } as const;
const badContents = {
  ...ANSWERS.jsonBody,
  400: 'Missing or malformed JSON body, contents in none of the three shapes, or beyond a bound (cookies, origins, size); the detail names the field, never a value.',
} as const;

const tags = ['profiles'];
const security = [{ bearer: [] }];

export function profileRoutes(deps: ProfileRouteDeps) {
  return async (app: TypedApp) => {
    app.addHook('onRequest', deps.guard.require('capture'));
    registerRoutes(app, PROFILE_ROUTES, deps.profiles);
  };
}

const PROFILE_ROUTES: RouteRegistrar<Profiles>[] = [
  createProfileRoute,
  listProfilesRoute,
  getProfileRoute,
  renameProfileRoute,
  replaceContentsRoute,
  deleteProfileRoute,
];

function createProfileRoute(app: TypedApp, profiles: Profiles) {
  app.post(
    '/v1/profiles',
    {
      preValidation: requireJsonBody,
      schema: {
        tags,
        summary: 'Create a browser profile from uploaded cookies',
        operationId: 'createProfile',
        body: createBody,
        security,
        response: {
          201: profileSchema,
          ...problemResponses({
            ...ANSWERS_OF_PROFILES,
            ...badContents,
            409: 'The tenant already has 100 profiles.',
          }),
        },
      },
    },
    async (req, reply) => reply.code(201).send(await profiles.create(callerOf(req), req.body)),
  );
}

function listProfilesRoute(app: TypedApp, profiles: Profiles) {
  app.get(
    '/v1/profiles',
    {
      schema: {
        tags,
        summary: 'List browser profiles',
        operationId: 'listProfiles',
        security,
        response: {
          200: z
            .object({ data: z.array(profileSchema) })
            .describe("The tenant's profiles, oldest first; empty when none."),
          ...problemResponses(ANSWERS_OF_PROFILES),
        },
      },
    },
    async (req) => profiles.list(callerOf(req)),
  );
}

function getProfileRoute(app: TypedApp, profiles: Profiles) {
  app.get(
    '/v1/profiles/:profileId',
    {
      schema: {
        tags,
        summary: 'Show a browser profile',
        operationId: 'getProfile',
        security,
        params,
        response: { 200: profileSchema, ...problemResponses({ ...ANSWERS_OF_PROFILES, ...unknownProfile }) },
      },
    },
    async (req) => profiles.show(callerOf(req), req.params.profileId),
  );
}

function renameProfileRoute(app: TypedApp, profiles: Profiles) {
  app.patch(
    '/v1/profiles/:profileId',
    {
      preValidation: requireJsonBody,
      schema: {
        tags,
        summary: 'Rename a browser profile',
        operationId: 'renameProfile',
        security,
        params,
        body: renameBody,
        response: {
          200: profileSchema,
          ...problemResponses({ ...ANSWERS_OF_PROFILES, ...ANSWERS.jsonBody, ...unknownProfile }),
        },
      },
    },
    async (req) => profiles.rename(callerOf(req), req.params.profileId, req.body.name),
  );
}

function replaceContentsRoute(app: TypedApp, profiles: Profiles) {
  app.put(
    '/v1/profiles/:profileId/contents',
    {
      preValidation: requireJsonBody,
      schema: {
        tags,
        summary: "Replace a browser profile's contents (a new version)",
        operationId: 'replaceProfileContents',
        security,
        params,
        body: contentsBody,
        response: {
          200: profileSchema,
          ...problemResponses({
            ...ANSWERS_OF_PROFILES,
            ...badContents,
            ...unknownProfile,
            409: 'The profile changed while this update was made; try again.',
          }),
        },
      },
    },
    async (req) => profiles.replaceContents(callerOf(req), req.params.profileId, req.body.contents),
  );
}

function deleteProfileRoute(app: TypedApp, profiles: Profiles) {
  app.delete(
    '/v1/profiles/:profileId',
    {
      schema: {
        tags,
        summary: 'Delete a browser profile (its sealed contents are dropped for good)',
        operationId: 'deleteProfile',
        security,
        params,
        response: {
          200: z
            .object({ id: z.string(), deleted: z.literal(true) })
            .describe(
              'Deleted; its sealed contents are gone, and a capture admitted before that fails with profile_unavailable.',
            ),
          ...problemResponses({ ...ANSWERS_OF_PROFILES, ...unknownProfile }),
        },
      },
    },
    async (req) => profiles.delete(callerOf(req), req.params.profileId),
  );
}
