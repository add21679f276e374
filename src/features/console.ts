import { consoleOidcRoutes } from '../api/routes/console-oidc.js';
import { consoleRoutes } from '../api/routes/console-pages.js';
import { consoleSessionRoutes } from '../api/routes/console-session.js';
import { createConsoleOidcSignIn } from '../application/console-oidc.js';
import type { ConsoleSessions } from '../application/console-sessions.js';
import { createOidcRelyingParty } from '../infra/oidc-relying-party.js';
import type { ApiRuntime, Feature } from './feature.js';

/**
 * The console at /console: its pages, and the sessions people sign in to it with (a key, or an OIDC provider). It
 * is one more client of the other features' routes (DESIGN decision 17).
 */
export function consoleFeature(api: ApiRuntime, sessions: ConsoleSessions, replayOrigin: string): Feature {
  const { guard, operator } = api;
  const { config, clock } = api.runtime;
  const publicBaseUrl = config.PUBLIC_BASE_URL;
  return {
    routes: [
      consoleSessionRoutes({ guard, operator, sessions, publicBaseUrl }),
      consoleOidcRoutes({
        guard,
        signIn: createConsoleOidcSignIn({
          providers: config.CONSOLE_OIDC_PROVIDERS,
          relyingParty: createOidcRelyingParty(),
          sessions,
        }),
        publicBaseUrl,
        clock,
      }),
      consoleRoutes({ replayOrigin, publicBaseUrl }),
    ],
  };
}
