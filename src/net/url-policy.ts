// Submission-time check of a capture target URL (spec 4.3, 4.5, 7.2; DESIGN decision 6). It is the first
// of two gates: a host that resolves nowhere now is accepted, because the egress proxy checks every
// address again when the browser actually connects.
import type { AddressPolicy } from './address-policy.js';
import { isLocalhostName, literalAddress, portOf, resolveAndCheck, type Resolver } from './resolve.js';

export const MAX_URL_LENGTH = 2048;

export type UrlRejectionReason =
  | 'missing'
  | 'malformed'
  | 'scheme'
  | 'credentials'
  | 'double_encoded'
  | 'private_address'
  | 'too_long';

export type UrlCheckResult = { ok: true; url: string } | { ok: false; reason: UrlRejectionReason; detail: string };

export interface UrlCheckDeps {
  policy: AddressPolicy;
  /** Defaults to the system resolver (dns.lookup, all addresses, verbatim order). */
  resolve?: Resolver;
  resolveTimeoutMs?: number;
  /** Told what a refused host resolved to, for the service's log (the caller's answer does not say). */
  onRefusedAddress?: (detail: string) => void;
}

const DEFAULT_RESOLVE_TIMEOUT_MS = 2_000;

// A percent-encoded "%" followed by two hex digits: "%2541" decodes to "%41".
const ENCODED_PERCENT_ESCAPE = /%25[0-9a-f]{2}/i;
const PERCENT_ESCAPE = /%[0-9a-f]{2}/gi;
// WHATWG URL silently drops tabs/newlines and trims C0 controls; refuse them so what we store is what was sent.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this refuses
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

export async function checkTargetUrl(raw: unknown, deps: UrlCheckDeps): Promise<UrlCheckResult> {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
    return reject('missing', 'url is required: send an absolute http or https URL such as https://example.com/');
  }
  if (typeof raw !== 'string') {
    return reject('malformed', `url must be a string, got ${Array.isArray(raw) ? 'array' : typeof raw}`);
  }
  const text = raw.trim();
  if (text.length > MAX_URL_LENGTH) {
    return reject('too_long', `url is ${text.length} characters long; the maximum is ${MAX_URL_LENGTH}`);
  }
  if (CONTROL_CHARS.test(text)) {
    return reject(
      'malformed',
      'url contains control characters (tab, newline or similar); percent-encode them or remove them',
    );
  }

  let url: URL;
  try {
    url = new URL(text);
  } catch {
    const hint = /^[a-z][a-z0-9+.-]*:/i.test(text) ? '' : ' (is the scheme missing? e.g. https://example.com/)';
    return reject('malformed', `url is not a valid absolute URL${hint}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return reject('scheme', `url scheme "${url.protocol.slice(0, -1)}" is not supported; use http or https`);
  }
  if (url.username !== '' || url.password !== '') {
    return reject(
      'credentials',
      'url must not contain a user name or password (user:pass@host); remove the credentials',
    );
  }
  const doubled = findDoubleEncoding(text);
  if (doubled !== undefined) {
    return reject('double_encoded', `url is percent-encoded twice (${doubled}); send it percent-encoded once`);
  }
  if (url.href.length > MAX_URL_LENGTH) {
    return reject(
      'too_long',
      `url is ${url.href.length} characters long once normalised; the maximum is ${MAX_URL_LENGTH}`,
    );
  }

  // url.hostname is already normalised: IPv4 in any numeric form becomes dotted decimal, IPv6 is bracketed,
  // percent-escapes in the host are decoded.
  const host = url.hostname;
  const literal = literalAddress(host) !== undefined;
  const outcome = await resolveAndCheck(
    host,
    deps.policy,
    deps.resolve,
    deps.resolveTimeoutMs ?? DEFAULT_RESOLVE_TIMEOUT_MS,
    portOf(url),
  );
  if (outcome.kind === 'blocked') {
    // A literal address or localhost is the caller's own text; a name's resolution is not told (no DNS oracle:
    // the refusal is visible to the submitter and on the public status endpoint). logDetail keeps it for logs.
    const detail = literal
      ? `url must point to a public internet address: the address ${host} is not allowed (${outcome.reason})`
      : isLocalhostName(host)
        ? `url must point to a public internet address: ${host} is always the local machine`
        : `url must point to a public internet address: ${host} resolves to an address that is not allowed`;
    deps.onRefusedAddress?.(`${host} resolves to ${outcome.address} (${outcome.reason})`);
    return { ok: false, reason: 'private_address', detail };
  }
  // 'unresolved' is accepted on purpose: DNS may be down here and fine at fetch time, where the egress
  // proxy resolves and checks again.
  return { ok: true, url: url.href };
}

/**
 * HTTP status for a rejection (spec 7.2). Single submissions: missing, malformed and a bad scheme are 400.
 * Batch items: 400 only for a missing or unparseable URL; an unsupported scheme of a parseable URL is 422.
 */
export function urlRejectionStatus(
  reason: UrlRejectionReason,
  options: { batchItem: boolean } = { batchItem: false },
): 400 | 422 {
  switch (reason) {
    case 'missing':
    case 'malformed':
      return 400;
    case 'scheme':
      return options.batchItem ? 422 : 400;
    case 'credentials':
    case 'double_encoded':
    case 'private_address':
    case 'too_long':
      return 422;
  }
}

/** Describes the first escape that is still an escape after decoding the URL once, if any. */
function findDoubleEncoding(text: string): string | undefined {
  const direct = ENCODED_PERCENT_ESCAPE.exec(text);
  if (direct) return `"${direct[0]}" decodes to "%${direct[0].slice(3)}"`;
  // Decode valid escapes once, leaving a stray "%" alone, so "%%34%31" (→ "%41") is caught too.
  const once = text.replace(PERCENT_ESCAPE, (esc) => String.fromCharCode(parseInt(esc.slice(1), 16)));
  const again = /%[0-9a-f]{2}/i.exec(once);
  return again ? `decoding once leaves "${again[0]}"` : undefined;
}

function reject(reason: UrlRejectionReason, detail: string): UrlCheckResult {
  return { ok: false, reason, detail };
}
