import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  type ConsoleOidcSignIn,
  OIDC_ERROR_CODES,
  type OidcErrorCode,
  OidcSignInRefused,
} from '../../application/console-oidc.js';
import type { Clock } from '../../domain/clock.js';
import type { TypedApp } from '../app.js';
import { cookieOptions, readCookie, sessionCookie } from '../console-cookies.js';
import { clearedFlowCookie, FLOW_COOKIE, flowCookie, openFlow, sealFlow } from '../console-oidc-cookie.js';
import { ANSWERS, problemResponses } from '../problem.js';
import type { TenantGuard } from '../tenant-auth.js';

/**
 * Console sign-in with OpenID Connect (docs/api.md, Signing in with OpenID Connect; docs/security.md): the
 * sign-in page lists the configured providers, the browser navigates to `start`, the provider sends it back to
 * `callback`, which opens a tenant console session and lands on the captures page. Browser navigations, so every
 * outcome is a redirect: a refusal goes to the sign-in page with a code, never to a URL the request names.
 */

export const SIGNED_IN_PAGE = '/console/captures';
export const signInPageWithError = (code: OidcErrorCode) => `/console/sign-in?error=${code}`;

const errorCodes = Object.entries(OIDC_ERROR_CODES)
  .map(([code, meaning]) => `\`${code}\`: ${meaning}`)
  .join(' ');

const providerParams = z.object({
  providerId: z.string().describe('A provider id from GET /console/oidc/providers.'),
});

const providerList = z
  .object({
    data: z.array(
      z.object({
        id: z.string().describe('Navigate to /console/oidc/{id}/start to sign in with it.'),
        label: z.string().describe('The name to show on the sign-in button.'),
      }),
    ),
  })
  .describe('The OpenID providers configured (CONSOLE_OIDC_PROVIDERS), in configuration order; empty when none.');

const redirect = (what: string) => z.undefined().describe(`${what} (no body; the target is in Location).`);

const sameText = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};
export interface ConsoleOidcRouteDeps {
  guard: TenantGuard;
  signIn: ConsoleOidcSignIn;
  publicBaseUrl: string;
  clock: Clock;
}

/** The deps with the cookie attributes derived from PUBLIC_BASE_URL once. */
interface OidcRouteContext extends ConsoleOidcRouteDeps {
  cookies: ReturnType<typeof cookieOptions>;
}

export function consoleOidcRoutes(deps: ConsoleOidcRouteDeps) {
  const ctx: OidcRouteContext = { ...deps, cookies: cookieOptions(deps.publicBaseUrl) };
  return async (app: TypedApp) => {
    app.addHook('onRequest', deps.guard.perIp());
    providersRoute(app, ctx);
    startRoute(app, ctx);
    callbackRoute(app, ctx);
  };
}

const callbackPath = (providerId: string) => `/console/oidc/${encodeURIComponent(providerId)}/callback`;

function refuse(
  { cookies }: OidcRouteContext,
  req: FastifyRequest,
  reply: FastifyReply,
  providerId: string,
  err: OidcSignInRefused,
) {
  req.log.warn({ provider: providerId, code: err.code, reason: err.reason }, 'console OpenID Connect sign-in refused');
  return reply.header('Set-Cookie', clearedFlowCookie(cookies)).redirect(signInPageWithError(err.code), 303);
}

function providersRoute(app: TypedApp, ctx: OidcRouteContext) {
  app.get(
    '/console/oidc/providers',
    {
      schema: {
        tags: ['console'],
        summary: 'OpenID providers for console sign-in',
        description: 'Ids and labels only; never an issuer secret. The sign-in page shows one button per provider.',
        operationId: 'listConsoleOidcProviders',
        security: [],
        response: { 200: providerList, ...problemResponses({ ...ANSWERS.perIp, ...ANSWERS.internal }) },
      },
    },
    async () => ({ data: ctx.signIn.list() }),
  );
}

function startRoute(app: TypedApp, ctx: OidcRouteContext) {
  app.get(
    '/console/oidc/:providerId/start',
    {
      schema: {
        tags: ['console'],
        summary: 'Start signing in with an OpenID provider',
        description: `A browser navigation. 302 to the provider's authorization endpoint (authorization code flow, PKCE S256, state, nonce), with the flow sealed in the \`cl_oidc_flow\` cookie (HttpOnly, SameSite=Lax, Path=/console/oidc, 10 minutes). The provider redirects back to ${callbackPath('{providerId}')} under PUBLIC_BASE_URL. When the provider is unknown or unreachable: 303 to /console/sign-in?error=<code>. Codes: ${errorCodes}`,
        operationId: 'startConsoleOidcSignIn',
        security: [],
        params: providerParams,
        response: {
          302: redirect("To the provider's authorization endpoint; Set-Cookie carries the sealed flow"),
          303: redirect('To /console/sign-in?error=oidc_unknown_provider or oidc_provider'),
          ...problemResponses({ ...ANSWERS.perIp, ...ANSWERS.internal }),
        },
      },
    },
    async (req, reply) => {
      const { providerId } = req.params;
      const provider = ctx.signIn.provider(providerId);
      if (!provider)
        return refuse(ctx, req, reply, providerId, new OidcSignInRefused('oidc_unknown_provider', 'not configured'));
      try {
        const { url, checks } = await ctx.signIn.start(provider, ctx.publicBaseUrl + callbackPath(provider.id));
        reply.header('Set-Cookie', flowCookie(sealFlow(provider, checks, ctx.clock.now().getTime()), ctx.cookies));
        return reply.redirect(url.href, 302);
      } catch (err) {
        if (err instanceof OidcSignInRefused) return refuse(ctx, req, reply, providerId, err);
        throw err;
      }
    },
  );
}

function callbackRoute(app: TypedApp, ctx: OidcRouteContext) {
  app.get(
    '/console/oidc/:providerId/callback',
    {
      schema: {
        tags: ['console'],
        summary: 'Finish signing in with an OpenID provider',
        description: `Where the provider sends the browser back (a browser navigation). Checks the state against the \`cl_oidc_flow\` cookie, exchanges the code with the PKCE verifier, validates the ID token (signature, issuer, audience, nonce, expiry), maps the configured claim to a tenant and scopes, and opens a tenant console session: 303 to ${SIGNED_IN_PAGE} with the tenant session cookie (as POST /console/session sets it; GET /console/session then gives its CSRF token). Any refusal: 303 to /console/sign-in?error=<code>, logged, no session. Codes: ${errorCodes}`,
        operationId: 'finishConsoleOidcSignIn',
        security: [],
        params: providerParams,
        querystring: z
          .object({
            code: z.string().optional().describe('The authorization code.'),
            state: z.string().optional().describe('The state sent at start.'),
            iss: z.string().optional().describe('The issuer (RFC 9207), checked when sent.'),
            error: z.string().optional().describe('The provider refused (e.g. access_denied).'),
            error_description: z.string().optional(),
          })
          .loose(),
        response: {
          303: redirect(
            `To ${SIGNED_IN_PAGE} signed in (Set-Cookie: the tenant session cookie), or to /console/sign-in?error=<code>; the flow cookie is cleared either way`,
          ),
          ...problemResponses({ ...ANSWERS.perIp, ...ANSWERS.internal }),
        },
      },
    },
    async (req, reply) => finishSignIn(ctx, req, reply, req.params.providerId, req.query.state),
  );
}

/** Checks the flow cookie and state, then lets the provider's answer open a tenant session; any refusal redirects. */
async function finishSignIn(
  ctx: OidcRouteContext,
  req: FastifyRequest,
  reply: FastifyReply,
  providerId: string,
  state: string | undefined,
) {
  const provider = ctx.signIn.provider(providerId);
  if (!provider)
    return refuse(ctx, req, reply, providerId, new OidcSignInRefused('oidc_unknown_provider', 'not configured'));
  const flow = openFlow(provider, readCookie(req.headers.cookie, FLOW_COOKIE), ctx.clock.now().getTime());
  if ('refused' in flow) return refuse(ctx, req, reply, providerId, new OidcSignInRefused('oidc_state', flow.refused));
  if (typeof state !== 'string' || !sameText(state, flow.checks.state))
    return refuse(ctx, req, reply, providerId, new OidcSignInRefused('oidc_state', 'state does not match the flow'));
  const search = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
  const callbackUrl = new URL(ctx.publicBaseUrl + callbackPath(provider.id) + search);
  try {
    const s = await ctx.signIn.finish(provider, callbackUrl, flow.checks);
    req.log.info({ provider: provider.id, tenantId: s.tenantId, subject: s.subject }, 'console OpenID Connect sign-in');
    reply.header('Set-Cookie', [sessionCookie('tenant', s.id, ctx.cookies), clearedFlowCookie(ctx.cookies)]);
    return reply.redirect(SIGNED_IN_PAGE, 303);
  } catch (err) {
    if (err instanceof OidcSignInRefused) return refuse(ctx, req, reply, providerId, err);
    throw err;
  }
}
