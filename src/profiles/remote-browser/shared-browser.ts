import type { Browser } from 'puppeteer-core';
import type { LaunchedChromium } from '../../capture/browser-launch.js';
import type { ProxySink } from '../../capture/proxy-sink.js';

/**
 * The Chromium the remote browsers run in, launched as a capture worker launches its own (browser-launch.ts:
 * sandboxed, unprivileged, no secret in its environment, its own traffic sent to a sink that refuses it), on the
 * first session and closed a while after the last one ends. Each session is a context of its own behind the
 * egress proxy, so sessions share no cookie or storage. Chromium's code is loaded then too: an API process whose
 * console never opens a remote browser loads none of it.
 */
export interface SharedBrowser {
  acquire(): Promise<{ browser: Browser; proxyServer: string }>;
  /** No session is open: the browser closes after `lingerMs` unless one opens meanwhile. */
  idle(): void;
  close(): Promise<void>;
}

export function createSharedBrowser(o: {
  chromiumPath?: string | undefined;
  /** The egress proxy's URL, given to each session's context; started with the first session. */
  proxyServer: () => Promise<string>;
  lingerMs?: number;
}): SharedBrowser {
  const lingerMs = o.lingerMs ?? 60_000;
  let sink: Promise<ProxySink> | null = null;
  let launching: Promise<LaunchedChromium> | null = null;
  let current: LaunchedChromium | null = null;
  let lingering: NodeJS.Timeout | undefined;
  let closed = false;

  async function launch(): Promise<LaunchedChromium> {
    const [{ launchChromium }, { startProxySink }] = await Promise.all([
      import('../../capture/browser-launch.js'),
      import('../../capture/proxy-sink.js'),
    ]);
    sink ??= startProxySink();
    const launched = await launchChromium({ chromiumPath: o.chromiumPath, proxyServer: (await sink).url });
    launched.browser.on('disconnected', () => {
      if (launching && current === launched) launching = null;
      void launched.close();
    });
    current = launched;
    return launched;
  }

  async function shut(): Promise<void> {
    const was = launching;
    launching = null;
    current = null;
    await (await was?.catch(() => null))?.close();
  }

  return {
    async acquire() {
      if (closed) throw new Error('the remote browsers are stopped');
      clearTimeout(lingering);
      launching ??= launch();
      launching.catch(() => (launching = null)); // a failed start is tried again by the next session
      const [{ browser }, proxyServer] = await Promise.all([launching, o.proxyServer()]);
      return { browser, proxyServer };
    },
    idle() {
      clearTimeout(lingering);
      lingering = setTimeout(() => void shut(), lingerMs);
      lingering.unref();
    },
    async close() {
      closed = true;
      clearTimeout(lingering);
      await shut();
      await (await sink?.catch(() => null))?.close();
    },
  };
}
