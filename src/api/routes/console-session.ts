import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ConsoleSessionKind, ConsoleSessions } from '../../application/console-sessions.js';
import { requireJsonBody, type TypedApp } from '../app.js';
import {
  CSRF_REFUSAL,
  checkUnsafeCookieRequest,
  clearedCookie,
  cookieOptions,
  isDuplicatedSessionCookie,
  sessionCookie,
} from '../console-cookies.js';
import { withHeaders } from '../openapi-headers.js';
import type { OperatorGuard } from '../operator-auth.js';
import { ANSWERS, HttpProblem, problemResponses } from '../problem.js';
import { dateTime, scopeSchema } from '../schemas.js';
import type { TenantGuard } from '../tenant-auth.js';

/**
 * Console sign-in (docs/security.md, Console sessions): trade a tenant key or the admin key for an
 * HttpOnly session cookie, read which sessions the browser holds, sign out. An extension beside the spec (DESIGN
 * decision 16); who a session is and whether it still holds is decided by the guards.
 */

const signInBody = z
  .object(
    {
      apiKey: z
        .string({ error: 'must be a string' })
        .min(1, 'must not be empty')
        .optional()
        .describe('A tenant API key.'),
      adminKey: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional().describe('ADMIN_KEY.'),
      analystKey: z
        .string({ error: 'must be a string' })
        .min(1, 'must not be empty')
        .optional()
        .describe('ANALYST_KEY: a session that reads the reports only.'),
    },
    { error: 'must be a JSON object with apiKey, adminKey or analystKey' },
  )
  .superRefine((b, ctx) => {
    const sent = (['apiKey', 'adminKey', 'analystKey'] as const).filter((k) => b[k] !== undefined);
    if (sent.length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['apiKey'],
        message:
          'is required: send apiKey (a tenant key), adminKey (the admin credential) or analystKey (the analysts’ key)',
      });
    else if (sent.length > 1)
      ctx.addIssue({
        code: 'custom',
        path: [sent[1]!],
        message: `must not be sent together with ${sent[0]}: sign in as one kind of user at a time`,
      });
  })
  .describe(
    'Exactly one of apiKey (a tenant session), adminKey (an operator session) and analystKey (an analyst session).',
  );

const DUPLICATED_COOKIE_ANSWER =
  'Two session cookies of one kind (sessionCookie: duplicated): neither is used; sign in again, or clear the cookies.';

const csrfToken = z
  .string()
  .describe('Send it in X-CSRF-Token with every request other than GET, HEAD and OPTIONS made with the cookie.');
const expiresAt = dateTime().describe(
  'When the session ends unless used before (idle timeout, capped by its lifetime).',
);
const tenantSession = z.object({ tenantId: z.string(), scopes: z.array(scopeSchema), csrfToken, expiresAt });
const operatorSession = z.object({ csrfToken, expiresAt });
const analystSession = z
  .object({ csrfToken, expiresAt })
  .describe('An analyst session: it reads GET /v1/admin/reports/{name} and nothing else.');

const signedIn = z
  .discriminatedUnion('kind', [
    tenantSession.extend({ kind: z.literal('tenant') }),
    operatorSession.extend({ kind: z.literal('operator') }),
    analystSession.extend({ kind: z.literal('analyst') }),
  ])
  .describe('The session opened; its id is only in the HttpOnly cookie.');

const sessionsSchema = z
  .object({
    tenant: tenantSession.nullable(),
    operator: operatorSession.nullable(),
    analyst: analystSession.nullable(),
  })
  .describe('The live sessions of the cookies sent; null for none or one that has ended (its cookie is cleared).');

const signOutQuery = z.object({
  kind: z.enum(['tenant', 'operator', 'analyst'], {
    error: (iss) =>
      iss.input === undefined
        ? 'is required: tenant, operator or analyst'
        : "must be 'tenant', 'operator' or 'analyst'",
  }),
});

export interface ConsoleSessionRouteDeps {
  guard: TenantGuard;
  operator: OperatorGuard;
  sessions: ConsoleSessions;
  publicBaseUrl: string;
}

/** The deps with the cookie attributes and origin derived from PUBLIC_BASE_URL once. */
interface SessionRouteContext extends ConsoleSessionRouteDeps {
  cookies: ReturnType<typeof cookieOptions>;
  publicOrigin: string;
}

export function consoleSessionRoutes(deps: ConsoleSessionRouteDeps) {
  const ctx: SessionRouteContext = {
    ...deps,
    cookies: cookieOptions(deps.publicBaseUrl),
    publicOrigin: new URL(deps.publicBaseUrl).origin,
  };
  return async (app: TypedApp) => {
    app.addHook('onRequest', deps.guard.perIp());
    signInRoute(app, ctx);
    sessionsRoute(app, ctx);
    signOutRoute(app, ctx);
  };
}

/** A session of this kind from the request's cookie; null (and the cookie cleared) when absent or ended. */
async function current<T>(
  { cookies }: SessionRouteContext,
  reply: FastifyReply,
  kind: ConsoleSessionKind,
  find: () => Promise<T | null>,
) {
  try {
    return await find();
  } catch (err) {
    // 401: ended, or its key revoked or changed; 503: no ADMIN_KEY (ANALYST_KEY), so no operator (analyst) session holds.
    // Two cookies of one kind are answered as they are: the console tells the person to sign in again.
    if (isDuplicatedSessionCookie(err)) throw err;
    if (!(err instanceof HttpProblem && (err.status === 401 || err.status === 503))) throw err;
    reply.header('Set-Cookie', clearedCookie(kind, cookies));
    return null;
  }
}

const readTenant = (ctx: SessionRouteContext, req: FastifyRequest, reply: FastifyReply) =>
  current(ctx, reply, 'tenant', () => ctx.guard.consoleSession(req));
const readOperator = (ctx: SessionRouteContext, req: FastifyRequest, reply: FastifyReply) =>
  current(ctx, reply, 'operator', () => ctx.operator.consoleSession(req, 'operator'));
const readAnalyst = (ctx: SessionRouteContext, req: FastifyRequest, reply: FastifyReply) =>
  current(ctx, reply, 'analyst', () => ctx.operator.consoleSession(req, 'analyst'));
const readSession = { tenant: readTenant, operator: readOperator, analyst: readAnalyst };

function signInRoute(app: TypedApp, ctx: SessionRouteContext) {
  app.post(
    '/console/session',
    {
      preValidation: requireJsonBody,
      schema: {
        tags: ['console'],
        summary: 'Sign in to the console',
        description:
          "Trades a tenant API key (apiKey), the admin credential (adminKey) or the analysts' key (analystKey, ANALYST_KEY) for a session cookie: `cl_tenant_session`, `cl_operator_session` or `cl_analyst_session` (named `__Host-cl_…` when PUBLIC_BASE_URL is https), HttpOnly, SameSite=Strict, Path=/, Secure under https. A request carrying two cookies of one kind is refused (401, `sessionCookie: duplicated`). The cookie holds a random session id, never the key. Requests without an Authorization header then authenticate by it; unsafe ones also send X-CSRF-Token. An analyst session reaches the report routes only.",
        operationId: 'openConsoleSession',
        security: [],
        body: signInBody,
        response: {
          200: withHeaders(signedIn, 'Signed in; Set-Cookie carries the session cookie.', ['Set-Cookie']),
          ...problemResponses({
            ...ANSWERS.jsonBody,
            ...ANSWERS.internal,
            400: 'Missing or malformed JSON body, or not exactly one of apiKey, adminKey and analystKey; the detail names the field.',
            401: 'Invalid or revoked API key, or an invalid admin or analyst credential.',
            403: "The key has only the 'admin' scope, which grants nothing in the tenant console.",
            429: 'Too many failed sign-ins from this address: charged like failed Bearer keys, or (adminKey, analystKey) like failed admin credentials (5 per 60 s).',
            503: 'adminKey sent while the admin API is not configured (ADMIN_KEY unset), or analystKey while analyst access is not (ANALYST_KEY unset).',
          }),
        },
      },
    },
    async (req, reply) => openSession(ctx, req, reply, req.body),
  );
}

/** Opens the session the body's one key asks for and sets its cookie. */
async function openSession(
  { guard, operator, cookies }: SessionRouteContext,
  req: FastifyRequest,
  reply: FastifyReply,
  body: z.output<typeof signInBody>,
) {
  if (body.apiKey !== undefined) {
    const s = await guard.openSession(req, body.apiKey);
    reply.header('Set-Cookie', sessionCookie('tenant', s.id, cookies));
    return {
      kind: 'tenant' as const,
      tenantId: s.principal.tenantId,
      scopes: s.principal.scopes,
      csrfToken: s.csrfToken,
      expiresAt: s.expiresAt.toISOString(),
    };
  }
  if (body.analystKey !== undefined) {
    const s = await operator.openSession(req, body.analystKey, 'analyst');
    reply.header('Set-Cookie', sessionCookie('analyst', s.id, cookies));
    return { kind: 'analyst' as const, csrfToken: s.csrfToken, expiresAt: s.expiresAt.toISOString() };
  }
  const s = await operator.openSession(req, body.adminKey!, 'operator');
  reply.header('Set-Cookie', sessionCookie('operator', s.id, cookies));
  return { kind: 'operator' as const, csrfToken: s.csrfToken, expiresAt: s.expiresAt.toISOString() };
}

function sessionsRoute(app: TypedApp, ctx: SessionRouteContext) {
  app.get(
    '/console/session',
    {
      schema: {
        tags: ['console'],
        summary: 'The console sessions this browser holds',
        description:
          'A missing or ended session is null, and an ended one has its cookie cleared. 401 only for a request with two session cookies of one kind (one was set by another page on this host): `sessionCookie` is `duplicated`, nothing is used or cleared.',
        operationId: 'getConsoleSessions',
        security: [],
        response: {
          200: sessionsSchema,
          ...problemResponses({ ...ANSWERS.perIp, ...ANSWERS.internal, 401: DUPLICATED_COOKIE_ANSWER }),
        },
      },
    },
    async (req, reply) => {
      const tenant = await readTenant(ctx, req, reply);
      const operator = await readOperator(ctx, req, reply);
      const analyst = await readAnalyst(ctx, req, reply);
      return {
        tenant: tenant && {
          tenantId: tenant.principal.tenantId,
          scopes: tenant.principal.scopes,
          csrfToken: tenant.session.csrfToken,
          expiresAt: tenant.session.expiresAt.toISOString(),
        },
        operator: operator && {
          csrfToken: operator.session.csrfToken,
          expiresAt: operator.session.expiresAt.toISOString(),
        },
        analyst: analyst && {
          csrfToken: analyst.session.csrfToken,
          expiresAt: analyst.session.expiresAt.toISOString(),
        },
      };
    },
  );
}

function signOutRoute(app: TypedApp, ctx: SessionRouteContext) {
  app.delete(
    '/console/session',
    {
      schema: {
        tags: ['console'],
        summary: 'Sign out of the console',
        description:
          'Ends the session of that kind on the server and clears its cookie; needs its X-CSRF-Token. Without a live session of that kind there is nothing to end: 204 too.',
        operationId: 'closeConsoleSession',
        security: [{ consoleTenantSession: [] }, { consoleOperatorSession: [] }, { consoleAnalystSession: [] }],
        querystring: signOutQuery,
        response: {
          204: z.undefined().describe('Signed out; Set-Cookie clears the cookie.'),
          ...problemResponses({
            ...ANSWERS.perIp,
            ...ANSWERS.internal,
            400: "kind is missing or not 'tenant', 'operator' or 'analyst'.",
            403: `${CSRF_REFUSAL} Or an Origin other than PUBLIC_BASE_URL's.`,
          }),
        },
      },
    },
    async (req, reply) => {
      const { kind } = req.query;
      const found = await readSession[kind](ctx, req, reply);
      if (found) {
        checkUnsafeCookieRequest(req, found.session.csrfToken, ctx.publicOrigin);
        await ctx.sessions.end(kind, found.id);
      }
      return reply.header('Set-Cookie', clearedCookie(kind, ctx.cookies)).code(204).send();
    },
  );
}
