import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { OidcProvider } from '../config/console-oidc-providers.js';
import type { OidcFlowChecks } from '../application/console-oidc.js';
import type { CookieOptions } from './console-cookies.js';

/**
 * The cookie that carries an OpenID Connect sign-in from its start to its callback (docs/security.md, Signing in
 * with OpenID Connect): the PKCE verifier, state and nonce, sealed with AES-256-GCM so the browser can neither read
 * nor forge them, and valid for 10 minutes. Stateless, so any API process can finish a flow another one started.
 *
 * The key is derived (HKDF-SHA256) from the provider's client secret, a secret every API process already holds:
 * no new variable, no shared store. The provider knows that secret too, but could forge nothing it cannot already
 * do — it is trusted to say who signs in. The provider's id is the associated data, so a flow of one provider is no
 * flow of another.
 */

export const FLOW_COOKIE = 'cl_oidc_flow';
export const FLOW_COOKIE_PATH = '/console/oidc';
export const FLOW_TTL_MS = 10 * 60_000;

const IV_BYTES = 12;
const TAG_BYTES = 16;

interface FlowPayload {
  /** Provider id, state, nonce, PKCE verifier, expiry (epoch ms). */
  p: string;
  s: string;
  n: string;
  v: string;
  e: number;
}

const keyOf = (provider: OidcProvider): Buffer =>
  Buffer.from(
    hkdfSync(
      'sha256',
      provider.clientSecret,
      'capture-ledger console oidc flow',
      `${provider.id}\0${provider.issuer}\0${provider.clientId}`,
      32,
    ),
  );

/** The sealed cookie value for a new flow. */
export function sealFlow(provider: OidcProvider, checks: OidcFlowChecks, now: number): string {
  const payload: FlowPayload = {
    p: provider.id,
    s: checks.state,
    n: checks.nonce,
    v: checks.codeVerifier,
    e: now + FLOW_TTL_MS,
  };
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(provider), iv);
  cipher.setAAD(Buffer.from(provider.id));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** The flow's checks, or why the cookie does not hold one for this provider. */
export function openFlow(
  provider: OidcProvider,
  value: string | undefined,
  now: number,
): { checks: OidcFlowChecks } | { refused: string } {
  if (!value) return { refused: 'no flow cookie' };
  const raw = Buffer.from(value, 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES + 2) return { refused: 'malformed flow cookie' };
  let payload: FlowPayload;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(provider), raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(provider.id));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
    payload = JSON.parse(plain.toString('utf8')) as FlowPayload;
  } catch {
    return { refused: 'flow cookie not sealed by this service for this provider' };
  }
  if (payload.p !== provider.id) return { refused: 'flow cookie of another provider' };
  if (!(now < payload.e)) return { refused: 'flow cookie expired' };
  return { checks: { state: payload.s, nonce: payload.n, codeVerifier: payload.v } };
}

/**
 * Set-Cookie for a flow: HttpOnly, SameSite=Lax — the provider's redirect back is a top-level cross-site GET, which
 * Strict would strip the cookie from — scoped to the OIDC routes, 10 minutes, Secure under TLS.
 */
export const flowCookie = (value: string, o: CookieOptions): string =>
  `${FLOW_COOKIE}=${value}; Path=${FLOW_COOKIE_PATH}; Max-Age=${FLOW_TTL_MS / 1000}; HttpOnly; SameSite=Lax${o.secure ? '; Secure' : ''}`;

export const clearedFlowCookie = (o: CookieOptions): string =>
  `${FLOW_COOKIE}=; Path=${FLOW_COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Lax${o.secure ? '; Secure' : ''}`;
