import type { Feature } from '../../features/feature.js';
import type { TenantGuard } from '../../api/tenant-auth.js';
import type { Config } from '../../config/config.js';
import { DEFAULT_CAPTURE_SETTINGS } from '../../domain/capture-options.js';
import type { AddressPolicy } from '../../net/address-policy.js';
import type { EgressLogger, EgressProxy } from '../../net/egress-proxy.js';
import type { OwnListeners } from '../../net/own-listeners.js';
import type { ProfileStates } from '../browser-state.js';
import { createRemoteBrowsers, RemoteBrowserError, type RemoteBrowsers } from './remote-browsers.js';
import { remoteBrowserRoutes } from './routes.js';
import { createSharedBrowser } from './shared-browser.js';

/**
 * The console's remote browser (docs/profiles-remote-browser.md): what the api role runs of it — its routes, and
 * stop(). Its pages go through an egress proxy of this process with the address policy every capture obeys
 * (DESIGN decision 6); its browser is launched as the capture workers launch theirs.
 */
export interface RemoteBrowserFeature extends Feature {
  browsers: RemoteBrowsers;
  stop(): Promise<void>;
}

export interface RemoteBrowserDeps {
  config: Pick<
    Config,
    | 'CHROMIUM_PATH'
    | 'PUBLIC_BASE_URL'
    | 'REMOTE_BROWSER_IDLE_MS'
    | 'REMOTE_BROWSER_MAX_MS'
    | 'REMOTE_BROWSER_PER_TENANT'
    | 'REMOTE_BROWSER_MAX'
  >;
  policy: AddressPolicy;
  ownListeners: OwnListeners;
  /** Where profiles are read and saved; null where this deployment keeps no profiles (opening is then a 503). */
  states: ProfileStates | null;
  guard: TenantGuard;
  log: EgressLogger & { child(bindings: object): EgressLogger };
}

/** Until a deployment keeps profiles, a remote browser has nothing to start from or save to. */
const noProfileStates: ProfileStates = {
  load: async () => null,
  save: async () => {
    throw new RemoteBrowserError('busy', 'This deployment keeps no browser profiles.');
  },
};

/** Nothing starts until the first session: its egress proxy, Chromium and their code come with it. */
export function remoteBrowserFeature(deps: RemoteBrowserDeps): RemoteBrowserFeature {
  const { config } = deps;
  let proxy: Promise<EgressProxy> | null = null;
  const egress = () => {
    proxy ??= (async () => {
      const { startEgressProxy } = await import('../../net/egress-proxy.js');
      const started = await startEgressProxy({
        policy: deps.policy,
        log: deps.log.child({ role: 'remote-browser-egress' }),
      });
      deps.ownListeners.add('127.0.0.1', started.port); // a page must not make the proxy tunnel to itself
      return started;
    })();
    proxy.catch(() => (proxy = null)); // tried again by the next session
    return proxy.then((p) => p.url);
  };
  const browser = createSharedBrowser({ chromiumPath: config.CHROMIUM_PATH, proxyServer: egress });
  const browsers = createRemoteBrowsers({
    browser,
    states: deps.states ?? noProfileStates,
    limits: {
      idleMs: config.REMOTE_BROWSER_IDLE_MS,
      maxMs: config.REMOTE_BROWSER_MAX_MS,
      perTenant: config.REMOTE_BROWSER_PER_TENANT,
      total: config.REMOTE_BROWSER_MAX,
    },
    // The size captures render at by default, so a profile is made on the pages captures will see.
    viewport: DEFAULT_CAPTURE_SETTINGS.viewport,
    log: deps.log.child({ role: 'remote-browser' }),
  });
  return {
    routes: [remoteBrowserRoutes({ guard: deps.guard, browsers, publicBaseUrl: config.PUBLIC_BASE_URL })],
    browsers,
    async stop() {
      await browsers.stop();
      await (await proxy?.catch(() => null))?.close();
    },
  };
}
