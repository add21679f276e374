import type * as Client from 'openid-client';
import { type OidcRelyingParty, OidcSignInRefused } from '../application/console-oidc.js';
import { isLoopbackHttp, type OidcProvider } from '../config/console-oidc-providers.js';

/**
 * The console as an OpenID Connect relying party, by openid-client (panva): discovery, the authorization code flow
 * with PKCE (S256), state and nonce, and the ID token's validation (signature by the provider's published keys,
 * issuer, audience, nonce, expiry). Nothing of the protocol is written here; this module only keeps each provider's
 * discovered configuration and turns the library's errors into sign-in refusals (never a 500).
 */

const DISCOVERY_TIMEOUT_S = 10;

/** The library loads at the first sign-in, not with the api role: most deployments have no provider. */
let library: Promise<typeof Client> | null = null;
const openidClient = (): Promise<typeof Client> => (library ??= import('openid-client'));

export function createOidcRelyingParty(): OidcRelyingParty {
  /** Discovered configurations by provider (issuer and client id included, so a changed entry rediscovers). */
  const discovered = new Map<string, Promise<Client.Configuration>>();

  function configurationOf(p: OidcProvider): Promise<Client.Configuration> {
    const key = JSON.stringify([p.id, p.issuer, p.clientId, p.clientSecret]);
    let found = discovered.get(key);
    if (!found) {
      found = openidClient().then((client) =>
        client.discovery(new URL(p.issuer), p.clientId, p.clientSecret, client.ClientSecretBasic(p.clientSecret), {
          timeout: DISCOVERY_TIMEOUT_S,
          // Plain http only for an issuer on loopback (config validation refuses http elsewhere): tests, development.
          ...(isLoopbackHttp(p.issuer) ? { execute: [client.allowInsecureRequests] } : {}),
        }),
      );
      discovered.set(key, found);
      // A failed discovery is not kept: the next sign-in tries again.
      found.catch(() => discovered.delete(key));
    }
    return found;
  }

  async function configured(p: OidcProvider): Promise<Client.Configuration> {
    try {
      return await configurationOf(p);
    } catch (err) {
      throw new OidcSignInRefused('oidc_provider', `discovery of ${p.issuer} failed: ${describe(err)}`);
    }
  }

  return {
    async start(provider, redirectUri) {
      const config = await configured(provider);
      const client = await openidClient();
      const checks = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        codeVerifier: client.randomPKCECodeVerifier(),
      };
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: provider.scope,
        response_type: 'code',
        code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
        state: checks.state,
        nonce: checks.nonce,
      });
      return { url, checks };
    },

    async finish(provider, callbackUrl, checks) {
      const config = await configured(provider);
      const client = await openidClient();
      let tokens: Awaited<ReturnType<typeof Client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: checks.codeVerifier,
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          idTokenExpected: true,
        });
      } catch (err) {
        if (err instanceof client.AuthorizationResponseError)
          throw new OidcSignInRefused(
            'oidc_denied',
            `the provider answered ${err.error}: ${err.error_description ?? ''}`,
          );
        throw new OidcSignInRefused('oidc_provider', `code exchange or ID token validation failed: ${describe(err)}`);
      }
      const idToken = tokens.claims();
      if (!idToken) throw new OidcSignInRefused('oidc_provider', 'the token response carries no ID token');
      const claims: Record<string, unknown> = { ...idToken };
      if (claims[provider.claim] === undefined && tokens.access_token && config.serverMetadata().userinfo_endpoint) {
        try {
          const info = await client.fetchUserInfo(config, tokens.access_token, idToken.sub);
          for (const [k, v] of Object.entries(info)) if (!(k in claims)) claims[k] = v;
        } catch (err) {
          throw new OidcSignInRefused('oidc_provider', `userinfo failed: ${describe(err)}`);
        }
      }
      return { subject: idToken.sub, claims };
    },
  };
}

const describe = (err: unknown): string =>
  err instanceof Error ? `${err.name}${'code' in err ? ` ${String(err.code)}` : ''}: ${err.message}` : String(err);
