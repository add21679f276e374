import type { Server } from 'node:http';
import Provider from 'oidc-provider';
import { freePort } from '../../src/infra/free-port.js';

/**
 * A real OpenID provider (oidc-provider, certified) on a free loopback port, for the console's OpenID Connect
 * sign-in tests: one confidential client (authorization code, PKCE, client_secret_basic) and the people it knows,
 * by login name, with the claims their ID token and userinfo carry. Its development login and consent forms
 * (devInteractions) take any password.
 */
export interface OidcProviderOptions {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Login name → claims beyond `sub` (e.g. `{ groups: ['legal'] }`). */
  accounts: Record<string, Record<string, unknown>>;
  /** Scope → the claims it releases; `openid` gives `sub`. */
  claims?: Record<string, string[]>;
  /**
   * The issuer's host name (it listens on 127.0.0.1 either way). `localhost` puts the provider on another site
   * than a service on 127.0.0.1, as a real provider is, so a browser applies its cross-site cookie rules.
   */
  hostname?: '127.0.0.1' | 'localhost';
}

export interface OidcProviderHandle {
  issuer: string;
  close(): Promise<void>;
}

export async function startOidcProvider(o: OidcProviderOptions): Promise<OidcProviderHandle> {
  const port = await freePort();
  const issuer = `http://${o.hostname ?? '127.0.0.1'}:${port}`;
  const claims = o.claims ?? { openid: ['sub'] };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: o.clientId,
        client_secret: o.clientSecret,
        redirect_uris: [o.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims,
    scopes: Object.keys(claims),
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ['oidc-provider-test-cookie-key'] },
    async findAccount(_ctx, sub) {
      const account = o.accounts[sub];
      if (!account) return undefined;
      return { accountId: sub, claims: async () => ({ ...account, sub }) };
    },
  });
  const server: Server = provider.listen(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    if (server.listening) return resolve();
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return {
    issuer,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
