/**
 * Recognises a bot-protection answer (a challenge, captcha or block page) in place of the page itself, so
 * a capture reports it (CaptureError 'challenge') instead of archiving it as the page. Checked on the page
 * as it is at capture time: a challenge the browser passed (Cloudflare's JavaScript check navigates to the
 * real page) is not reported.
 *
 * The markers are the ones these services put in every challenge page: response headers
 * (`cf-mitigated: challenge`, `x-datadome`, …), script and element names (`_cf_chl_opt`, `px-captcha`,
 * `captcha-delivery.com`, …) and titles. Markers that ordinary pages behind the same service also carry
 * (Cloudflare's `/cdn-cgi/challenge-platform/` bot script, a reCAPTCHA on a login form) only count with an
 * error status (403, 429, 503, …).
 */
import type { HeaderPairs } from './http-headers.js';

export interface ChallengeEvidence {
  /** The main document's final status (0 if unknown). */
  status: number;
  headers: HeaderPairs;
  title: string;
  /** The rendered HTML of the main document (only its first part is looked at). */
  html: string;
}

interface Protection {
  name: string;
  /** Recognised whatever the status. */
  certain: (e: Normalised) => boolean;
  /** Recognised only with an error status. */
  withErrorStatus?: (e: Normalised) => boolean;
}

interface Normalised {
  header: (name: string) => string | undefined;
  title: string;
  html: string;
}

const PROTECTIONS: Protection[] = [
  {
    name: 'Cloudflare',
    certain: (e) =>
      /^challenge$/i.test(e.header('cf-mitigated') ?? '') ||
      /window\._cf_chl_opt|id="challenge-(form|running|stage)"|\/cdn-cgi\/challenge-platform\/h\/[bg]\/orchestrate\/chl_page/i.test(
        e.html,
      ) ||
      (/^just a moment\.\.\.$/i.test(e.title) && /cloudflare|cf-chl|cdn-cgi/i.test(e.html)),
    withErrorStatus: (e) =>
      /^(just a moment|attention required|access denied)\b/i.test(e.title) &&
      (/cloudflare/i.test(e.header('server') ?? '') || /cloudflare|cf-ray|cdn-cgi/i.test(e.html)),
  },
  {
    name: 'DataDome',
    certain: (e) => /(geo|ct)\.captcha-delivery\.com|var dd=\{['"]?rt['"]?:/i.test(e.html),
    withErrorStatus: (e) => e.header('x-datadome') !== undefined || /datadome/i.test(e.header('set-cookie') ?? ''),
  },
  {
    name: 'PerimeterX (HUMAN)',
    certain: (e) =>
      /id="px-captcha"|captcha\.px-cdn\.net|window\._pxAppId[\s\S]{0,2000}(px-captcha|_pxBlockedUrl)|_pxBlockedUrl/i.test(
        e.html,
      ),
    withErrorStatus: (e) => /window\._pxAppId|perimeterx|px-cloud\.net/i.test(e.html),
  },
  {
    name: 'Akamai',
    certain: () => false,
    withErrorStatus: (e) =>
      (/^access denied$/i.test(e.title) && /errors\.edgesuite\.net|Reference&#32;&#35;|Reference #\d/i.test(e.html)) ||
      (/akamaighost/i.test(e.header('server') ?? '') && /access denied/i.test(e.title)),
  },
  {
    name: 'Imperva (Incapsula)',
    certain: (e) => /_Incapsula_Resource|Incapsula incident ID/i.test(e.html),
  },
  {
    name: 'AWS WAF',
    certain: (e) =>
      /^(challenge|captcha)$/i.test(e.header('x-amzn-waf-action') ?? '') ||
      /window\.gokuProps\s*=|awsWafCookieDomainList/i.test(e.html),
  },
  {
    name: 'Kasada',
    certain: () => false,
    withErrorStatus: (e) => e.header('x-kpsdk-ct') !== undefined || /ips\.js\?|KPSDK/i.test(e.html),
  },
  {
    name: 'hCaptcha',
    certain: (e) => interstitialTitle(e.title) && /hcaptcha\.com\/1\/api\.js|class="h-captcha"/i.test(e.html),
    withErrorStatus: (e) => /hcaptcha\.com\/1\/api\.js|class="h-captcha"/i.test(e.html),
  },
  {
    name: 'reCAPTCHA',
    certain: (e) =>
      interstitialTitle(e.title) &&
      /google\.com\/recaptcha\/|recaptcha\.net\/recaptcha\/|class="g-recaptcha"/i.test(e.html),
    withErrorStatus: (e) => /google\.com\/recaptcha\/|recaptcha\.net\/recaptcha\/|class="g-recaptcha"/i.test(e.html),
  },
];

/** Titles of pages that are nothing but a human check. */
function interstitialTitle(title: string): boolean {
  return /verify(ing)? (that )?you are (a )?human|are you a (robot|human)|security check|bot (check|protection)|human verification|captcha/i.test(
    title,
  );
}

/** Statuses challenge and block pages come with. */
function errorStatus(status: number): boolean {
  return status === 401 || status === 403 || status === 405 || status === 429 || status === 503;
}

/** The name of the protection whose challenge page this is, or undefined for an ordinary page. */
export function detectChallenge(evidence: ChallengeEvidence): string | undefined {
  const headers = new Map<string, string>();
  for (const [name, value] of evidence.headers) {
    const key = name.toLowerCase();
    headers.set(key, headers.has(key) ? `${headers.get(key)}, ${value}` : value);
  }
  const e: Normalised = {
    header: (name) => headers.get(name),
    title: evidence.title.trim(),
    html: evidence.html.slice(0, 256 * 1024),
  };
  const failing = errorStatus(evidence.status);
  for (const protection of PROTECTIONS) {
    if (protection.certain(e) || (failing && protection.withErrorStatus?.(e))) return protection.name;
  }
  return undefined;
}

/** The tenant-facing message for a detected challenge. */
export function challengeMessage(protection: string, status: number): string {
  const answered = status > 0 ? ` (HTTP ${status})` : '';
  return `The site answered with a ${protection} bot-protection challenge page${answered} instead of the page; it was not archived as the page`;
}
