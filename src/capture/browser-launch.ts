/**
 * Starts one headless Chromium with the flags the service relies on, in a fresh user-data directory that
 * is removed again when the browser is closed. The browser renders hostile pages (DESIGN decision 11): its
 * sandbox is on, it gets an environment without any of the service's secrets, and when the service runs as
 * root it runs as the unprivileged user `nobody` (uid 65534), with a HOME and TMPDIR of its own.
 */
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { resolveChromiumPath } from './chromium-path.js';
import { withTimeout } from './step-timeout.js';

export interface ChromiumLaunchOptions {
  /** Configured binary (CHROMIUM_PATH); otherwise the Debian locations are tried. */
  chromiumPath?: string | undefined;
  /**
   * The browser-wide proxy, e.g. http://127.0.0.1:8899, loopback included. The pool passes the sink that
   * refuses the browser's own traffic (proxy-sink.ts) and gives each capture context the egress proxy
   * (DESIGN decision 6), the one place that decides which addresses a page may reach.
   */
  proxyServer?: string | undefined;
  launchTimeoutMs?: number;
  /** More Chromium flags (tests: trusting a fixture's certificate by its SPKI hash). */
  extraArgs?: string[];
  /**
   * Keep puppeteer's automation switch (navigator.webdriver true), as a script that calls puppeteer.launch()
   * gets it: only for the bare-puppeteer baseline of BENCH=fidelity.
   */
  asAutomatedBrowser?: boolean;
}

export interface LaunchedChromium {
  browser: Browser;
  pid: number | null;
  /** Closes the browser (killing it if it does not close in time) and removes its profile directory. */
  close(): Promise<void>;
}

const WEBDRIVER_OFF = '--disable-blink-features=AutomationControlled';

export function chromiumArgs(options: { proxyServer?: string | undefined }): string[] {
  const args = [
    '--disable-gpu',
    // No connection of Chromium's own (updates, accounts, metrics, safe browsing, hints): the egress proxy
    // should see only what pages ask for. Puppeteer's defaults add more of these; its --disable-features
    // list is merged with this one.
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-domain-reliability',
    '--disable-client-side-phishing-detection',
    '--safebrowsing-disable-auto-update',
    '--no-pings',
    '--no-default-browser-check',
    '--disable-features=AutofillServerCommunication,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,OptimizationGuideModelDownloading,OptimizationHintsFetching,OptimizationTargetPrediction,DialMediaRouteProvider,PrivacySandboxSettings4,SafeBrowsingEnhancedProtection,NetworkTimeServiceQuerying,UseDnsHttpsSvcb,ChromeWhatsNewUI,HeavyAdPrivacyMitigations',
    // The address bar's popups are web pages of their own (chrome://omnibox-popup.top-chrome/), which Chromium
    // preloads for every window, a capture's context included: a renderer running their app that no headless
    // capture shows, which cost as much CPU as the page being captured.
    '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup',
    '--no-first-run',
    '--disable-quic',
    '--disable-dev-shm-usage', // containers often have a tiny /dev/shm
    // WebRTC would send STUN/media over UDP straight to any address a page names, past the egress proxy
    // (which only carries TCP): only proxied connections are allowed, i.e. no UDP at all.
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    // A person's browser reports navigator.webdriver false; pages that check it show a "bot detected" text
    // instead of their content. Blink then reports false although the browser is driven over
    // the DevTools pipe; puppeteer's --enable-automation is left out too (launchChromium).
    WEBDRIVER_OFF,
    // Headless Chromium's screen is 800×600 with a smaller outer window than the 1280×800 page inside it, which
    // no person's browser shows and bot checks look for: a 1920×1080 screen (the commonest) and window.
    '--window-size=1920,1080',
    '--screen-info={1920x1080}',
  ];
  if (options.proxyServer) {
    // "<-loopback>" removes Chromium's implicit bypass of localhost, so loopback is proxied too.
    args.push(`--proxy-server=${options.proxyServer}`, '--proxy-bypass-list=<-loopback>');
  }
  return args;
}

/** The unprivileged user Chromium runs as when the service is root. */
export const BROWSER_UID = 65534;
const SETPRIV = '/usr/bin/setpriv';
const STDERR_TAIL_CHARS = 2000;

interface BrowserHome {
  /** What puppeteer starts: the Chromium binary, or a root-owned wrapper that drops to BROWSER_UID first. */
  executable: string;
  userDataDir: string;
  env: NodeJS.ProcessEnv;
  /** The end of what the browser wrote to stderr. */
  stderrTail(): Promise<string>;
  remove(): Promise<void>;
}

/**
 * A home for one browser: a profile directory the browser's user owns, and an environment with only what a
 * browser needs — never the service's variables (ADMIN_KEY, SIGNING_KEY, DATABASE_URL …).
 */
async function prepareBrowserHome(chromium: string): Promise<BrowserHome> {
  const home = await mkdtemp(join(tmpdir(), 'capture-ledger-chromium-'));
  const userDataDir = join(home, 'profile');
  await mkdir(userDataDir);
  const env: NodeJS.ProcessEnv = { PATH: '/usr/bin:/bin', HOME: home, TMPDIR: home, LANG: 'C.UTF-8' };
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    // The browser's files belong to nobody.
    for (const dir of [home, userDataDir]) {
      await chown(dir, BROWSER_UID, BROWSER_UID);
      await chmod(dir, 0o700);
    }
  }
  // A wrapper starts the browser: as root it drops to nobody first; always it keeps Chromium's stderr, so
  // a browser that dies at start is reported in its own words (over the pipe puppeteer only sees "Target
  // closed"). It stays the service user's, in a directory of its own that the browser's user cannot write to.
  const wrapperDir = await mkdtemp(join(tmpdir(), 'capture-ledger-launch-'));
  const executable = join(wrapperDir, 'chromium');
  const stderrLog = join(wrapperDir, 'stderr.log');
  const dropPrivileges = asRoot
    ? `${SETPRIV} --reuid=${BROWSER_UID} --regid=${BROWSER_UID} --clear-groups --inh-caps=-all -- `
    : '';
  await writeFile(executable, `#!/bin/sh\nexec ${dropPrivileges}${chromium} "$@" 2>>${stderrLog}\n`, { mode: 0o755 });
  return {
    executable,
    userDataDir,
    env,
    async stderrTail() {
      const text = await readFile(stderrLog, 'utf8').catch(() => '');
      return text.slice(-STDERR_TAIL_CHARS).trim();
    },
    async remove() {
      await rm(home, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
      await rm(wrapperDir, { recursive: true, force: true }).catch(() => {});
    },
  };
}

export async function launchChromium(options: ChromiumLaunchOptions = {}): Promise<LaunchedChromium> {
  const home = await prepareBrowserHome(resolveChromiumPath({ explicitPath: options.chromiumPath }));
  let browser: Browser;
  try {
    // puppeteer's modules load with the first browser, not with the worker role's (docs/performance.md).
    const { default: puppeteer } = await import('puppeteer-core');
    browser = await puppeteer.launch({
      executablePath: home.executable,
      headless: true,
      pipe: true,
      userDataDir: home.userDataDir,
      env: home.env,
      args: [
        ...chromiumArgs(options).filter((arg) => !options.asAutomatedBrowser || arg !== WEBDRIVER_OFF),
        ...(options.extraArgs ?? []),
      ],
      // --enable-automation sets navigator.webdriver and is nothing a person's browser runs with.
      ignoreDefaultArgs: options.asAutomatedBrowser ? [] : ['--enable-automation'],
      defaultViewport: null,
      // A busy host starts Chromium slowly; a start that fails is the service's failure, retried later.
      timeout: options.launchTimeoutMs ?? 120_000,
      // Each step is bounded by the capture on the page clock (page-capture.ts); this only catches a lost reply.
      protocolTimeout: 600_000,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (error) {
    const said = await home.stderrTail();
    await home.remove();
    throw said ? new Error(`Chromium did not start: ${said}`, { cause: error }) : error;
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
        await home.remove();
      })();
      return closing;
    },
  };
}
