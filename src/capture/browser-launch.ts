/**
 * Starts one headless Chromium with the flags the service relies on, in a fresh user-data directory that
 * is removed again when the browser is closed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { resolveChromiumPath } from './chromium-path.js';
import { withTimeout } from './step-timeout.js';

export interface ChromiumLaunchOptions {
  /** Configured binary (CHROMIUM_PATH); otherwise the Debian locations are tried. */
  chromiumPath?: string | undefined;
  /**
   * Egress proxy, e.g. http://127.0.0.1:8899. Every connection, loopback included, goes through it
   * (DESIGN decision 6), so the proxy is the one place that decides which addresses the browser may reach.
   */
  proxyServer?: string | undefined;
  launchTimeoutMs?: number;
}

export interface LaunchedChromium {
  browser: Browser;
  pid: number | null;
  /** Closes the browser (killing it if it does not close in time) and removes its profile directory. */
  close(): Promise<void>;
}

export function chromiumArgs(options: { proxyServer?: string | undefined }): string[] {
  const args = [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
    '--disable-dev-shm-usage', // containers often have a tiny /dev/shm
  ];
  if (options.proxyServer) {
    // "<-loopback>" removes Chromium's implicit bypass of localhost, so loopback is proxied too.
    args.push(`--proxy-server=${options.proxyServer}`, '--proxy-bypass-list=<-loopback>');
  }
  return args;
}

export async function launchChromium(options: ChromiumLaunchOptions = {}): Promise<LaunchedChromium> {
  const executablePath = resolveChromiumPath({ explicitPath: options.chromiumPath });
  const userDataDir = await mkdtemp(join(tmpdir(), 'capture-ledger-chromium-'));
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath,
      headless: true,
      pipe: true,
      userDataDir,
      args: chromiumArgs(options),
      defaultViewport: null,
      timeout: options.launchTimeoutMs ?? 30_000,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw error;
  }
  const child = browser.process();
  let closing: Promise<void> | undefined;
  return {
    browser,
    pid: child?.pid ?? null,
    close() {
      closing ??= (async () => {
        if (browser.connected) {
          await withTimeout(browser.close(), 5000, () => new Error('browser close timed out')).catch(() => {});
        }
        if (child && child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 2000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
          });
        }
        await rm(userDataDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
      })();
      return closing;
    },
  };
}
