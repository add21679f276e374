import type { OidcProvider } from '../config/console-oidc-providers.js';
import type { Principal } from './caller.js';
import type { ConsoleSessions, OidcSessionBinding } from './console-sessions.js';

/**
 * Console sign-in with OpenID Connect (docs/api.md, Signing in with OpenID Connect): which tenant and scopes
 * a person's verified claims map to under the operator's configuration. Pure rules; the protocol itself (discovery,
 * PKCE, state, nonce, ID token validation) is openid-client's, in src/infra/oidc-relying-party.ts.
 */

/** Why a sign-in was refused, as the sign-in page receives it (`/console/sign-in?error=<code>`). */
export const OIDC_ERROR_CODES = {
  oidc_unknown_provider: 'No OpenID provider with this id is configured.',
  oidc_state: 'The sign-in could not be matched to one started in this browser (missing, expired or forged state).',
  oidc_denied: 'The OpenID provider did not sign the person in (cancelled, or refused by the provider).',
  oidc_provider: 'The OpenID provider could not be reached or gave an answer that failed validation.',
  oidc_no_mapping: 'The person signed in, but no mapping of this provider grants them a tenant.',
} as const;
export type OidcErrorCode = keyof typeof OIDC_ERROR_CODES;

/** A refused sign-in: `code` goes to the browser, `reason` only to the log. */
export class OidcSignInRefused extends Error {
  override name = 'OidcSignInRefused';
  constructor(
    readonly code: OidcErrorCode,
    readonly reason: string,
  ) {
    super(`${code}: ${reason}`);
  }
}

/**
 * The claim's values: a string is one value, an array of strings (groups) each element; anything else none.
 * An `email` claim counts only when the provider says it is verified (`email_verified: true`), or anyone could
 * type the address of a mapped person into a provider that lets users set their own.
 */
export function claimValues(claims: Record<string, unknown>, claim: string): string[] {
  const raw = claims[claim];
  if (claim === 'email' && claims.email_verified !== true) return [];
  if (typeof raw === 'string') return [raw];
  if (Array.isArray(raw)) return raw.filter((v): v is string => typeof v === 'string');
  return [];
}

/** The first mapping (in configuration order) whose value is one of the claim's values. */
export function mapClaim(provider: OidcProvider, values: readonly string[]) {
  return provider.mappings.find((m) => values.includes(m.value)) ?? null;
}

/** A sign-in's session binding, or the refusal when the claim maps to no tenant. */
export function bindingOf(
  provider: OidcProvider,
  identity: { subject: string; claims: Record<string, unknown> },
): { kind: 'tenant'; oidc: OidcSessionBinding; tenantId: string; scopes: ('capture' | 'read')[] } {
  const values = claimValues(identity.claims, provider.claim);
  const mapping = mapClaim(provider, values);
  if (!mapping)
    throw new OidcSignInRefused(
      'oidc_no_mapping',
      values.length === 0
        ? `the ID token and userinfo carry no usable '${provider.claim}' claim`
        : `no mapping for ${values.length} value(s) of '${provider.claim}'`,
    );
  return {
    kind: 'tenant',
    oidc: {
      provider: provider.id,
      issuer: provider.issuer,
      subject: identity.subject,
      claim: provider.claim,
      claimValues: values,
    },
    tenantId: mapping.tenantId,
    scopes: [...mapping.scopes],
  };
}

/**
 * Who an OpenID Connect session is under today's configuration: its claim values mapped again, so a removed
 * provider, a changed issuer or claim, or a mapping removed or pointed at another tenant ends the session; changed scopes
 * apply from the next request. null: the session no longer holds.
 */
export function principalOfOidcSession(
  providers: readonly OidcProvider[],
  binding: { oidc: OidcSessionBinding; tenantId: string },
): Principal | null {
  const provider = providers.find((p) => p.id === binding.oidc.provider);
  if (!provider || provider.issuer !== binding.oidc.issuer || provider.claim !== binding.oidc.claim) return null;
  const mapping = mapClaim(provider, binding.oidc.claimValues);
  if (!mapping || mapping.tenantId !== binding.tenantId) return null;
  return {
    tenantId: mapping.tenantId,
    scopes: [...mapping.scopes],
    keyHash: null,
    oidc: { provider: provider.id, subject: binding.oidc.subject },
  };
}

/** What the callback needs back from the start of the flow (the browser keeps it in a sealed cookie). */
export interface OidcFlowChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface OidcIdentity {
  subject: string;
  /** The ID token's claims, with the userinfo endpoint's added when the ID token lacks the mapped claim. */
  claims: Record<string, unknown>;
}

/** The protocol side (src/infra/oidc-relying-party.ts, openid-client). */
export interface OidcRelyingParty {
  /** The provider's authorization URL for a new flow and the checks its callback must pass. */
  start(provider: OidcProvider, redirectUri: string): Promise<{ url: URL; checks: OidcFlowChecks }>;
  /** The callback: exchange the code and validate the answer (ID token included); throws OidcSignInRefused. */
  finish(provider: OidcProvider, callbackUrl: URL, checks: OidcFlowChecks): Promise<OidcIdentity>;
}

export interface ConsoleOidcSignIn {
  /** What the sign-in page lists: ids and labels, nothing secret. */
  list(): { id: string; label: string }[];
  provider(id: string): OidcProvider | null;
  start(provider: OidcProvider, redirectUri: string): Promise<{ url: URL; checks: OidcFlowChecks }>;
  /** Validate the callback, map the claim, open the tenant console session; throws OidcSignInRefused. */
  finish(
    provider: OidcProvider,
    callbackUrl: URL,
    checks: OidcFlowChecks,
  ): Promise<{ tenantId: string; scopes: string[]; subject: string; id: string; csrfToken: string; expiresAt: Date }>;
}

export function createConsoleOidcSignIn(deps: {
  providers: readonly OidcProvider[];
  relyingParty: OidcRelyingParty;
  sessions: ConsoleSessions;
}): ConsoleOidcSignIn {
  return {
    list: () => deps.providers.map((p) => ({ id: p.id, label: p.label })),
    provider: (id) => deps.providers.find((p) => p.id === id) ?? null,
    start: (provider, redirectUri) => deps.relyingParty.start(provider, redirectUri),
    async finish(provider, callbackUrl, checks) {
      const identity = await deps.relyingParty.finish(provider, callbackUrl, checks);
      const binding = bindingOf(provider, identity);
      const opened = await deps.sessions.open(binding);
      return { tenantId: binding.tenantId, scopes: binding.scopes, subject: identity.subject, ...opened };
    },
  };
}
