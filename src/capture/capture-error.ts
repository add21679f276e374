import type { FailureReason } from '../domain/failure-reason.js';

/**
 * The one error a capture ends with. `message` is shown to the tenant (spec 2.1 `error`), `retryable`
 * becomes the capture's `retryable`, and callers branch on `code`, never on the message.
 */
export type CaptureErrorCode =
  /** Navigation or a later step ran out of time; the capture was stopped. */
  | 'timeout'
  /** The page could not be fetched (connection refused, reset, DNS, …). */
  | 'navigation_failed'
  /** The egress proxy or Chromium refused to connect to the address. */
  | 'blocked'
  /** The server's answer cannot be rendered and will not change on retry (bad redirect, download, …). */
  | 'invalid_response'
  /** The site's TLS certificate or handshake was refused. */
  | 'tls_error'
  /** The browser process died or disconnected during the capture. */
  | 'browser_crashed'
  /** The page's renderer process crashed. */
  | 'page_crashed'
  /** The site answered with a bot-protection or challenge page instead of the page itself. */
  | 'challenge'
  /** The capture service itself could not get on (no browser page within its bound, shutting down, storing failed). */
  | 'service_busy'
  /** Anything else that went wrong while rendering or reading the page. */
  | 'capture_failed'
  /** The vantage point the capture asked for is not configured here, does not answer, or exits elsewhere. */
  | 'vantage_unavailable'
  /** The browser profile the capture asked for has no contents any more (deleted since admission). */
  | 'profile_unavailable';

/**
 * Whose failure a code is, and the reason class a tenant sees (docs/api.md, Failure reasons). The page's failures
 * use up the page's attempts; the service's own are retried with backoff outside them (DESIGN decision 13).
 */
export const FAILURE_CLASSES: Record<CaptureErrorCode, { failureReason: FailureReason; owner: 'page' | 'service' }> = {
  timeout: { failureReason: 'target_timeout', owner: 'page' },
  navigation_failed: { failureReason: 'target_unreachable', owner: 'page' },
  tls_error: { failureReason: 'target_unreachable', owner: 'page' },
  invalid_response: { failureReason: 'target_refused', owner: 'page' },
  blocked: { failureReason: 'egress_refused', owner: 'page' },
  challenge: { failureReason: 'blocked', owner: 'page' },
  // A renderer that crashes on a page usually crashes on it again: the page's attempt.
  page_crashed: { failureReason: 'browser_crashed', owner: 'page' },
  browser_crashed: { failureReason: 'browser_crashed', owner: 'service' },
  service_busy: { failureReason: 'service_overloaded', owner: 'service' },
  capture_failed: { failureReason: 'browser_crashed', owner: 'service' },
  // Counted against the page's attempts: a vantage that is down for the retries fails the capture in seconds.
  vantage_unavailable: { failureReason: 'vantage_unavailable', owner: 'page' },
  profile_unavailable: { failureReason: 'profile_unavailable', owner: 'page' },
};

export class CaptureError extends Error {
  override readonly name = 'CaptureError';

  constructor(
    readonly code: CaptureErrorCode,
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isCaptureError(value: unknown): value is CaptureError {
  return value instanceof CaptureError;
}

/** Lets the egress proxy say why a connection it handled failed (see PageCaptureOptions); kind 'vantage': its upstream did not answer. */
export type ExplainNetworkError = (url: string) => { reason: string; retryable: boolean; kind?: string } | undefined;

/** Pulls `ERR_…` out of Chromium's error text ("net::ERR_CONNECTION_REFUSED at http://…"). */
export function netErrorName(text: string | undefined): string | undefined {
  return text ? /\b(ERR_[A-Z0-9_]+)\b/.exec(text)?.[1] : undefined;
}

interface NetErrorRule {
  match: (name: string) => boolean;
  code: CaptureErrorCode;
  retryable: boolean;
  message: string;
}

const PROXY_ERROR = /^ERR_(TUNNEL_CONNECTION_FAILED|PROXY_|HTTPS_PROXY_|MANDATORY_PROXY_)/;

// Order matters: first match wins. Retryable = a later attempt may succeed (spec 2.1 `retryable`).
const NET_ERROR_RULES: NetErrorRule[] = [
  rule(['ERR_CONNECTION_REFUSED'], 'navigation_failed', true, 'The site refused the connection'),
  rule(
    [
      'ERR_CONNECTION_RESET',
      'ERR_CONNECTION_CLOSED',
      'ERR_CONNECTION_ABORTED',
      'ERR_EMPTY_RESPONSE',
      'ERR_CONNECTION_FAILED',
    ],
    'navigation_failed',
    true,
    'The connection to the site was closed unexpectedly',
  ),
  rule(['ERR_CONNECTION_TIMED_OUT', 'ERR_TIMED_OUT'], 'timeout', true, 'The site did not answer in time'),
  rule(
    [
      'ERR_ADDRESS_UNREACHABLE',
      'ERR_NETWORK_CHANGED',
      'ERR_INTERNET_DISCONNECTED',
      'ERR_NAME_RESOLUTION_FAILED',
      'ERR_NETWORK_IO_SUSPENDED',
    ],
    'navigation_failed',
    true,
    'The site could not be reached',
  ),
  rule(['ERR_NAME_NOT_RESOLVED'], 'navigation_failed', false, "The site's domain name does not resolve"),
  {
    match: (n) => n.startsWith('ERR_CERT_') || n.startsWith('ERR_SSL_') || n === 'ERR_BAD_SSL_CLIENT_AUTH_CERT',
    code: 'tls_error',
    retryable: false,
    message: "The site's TLS certificate or connection was rejected",
  },
  rule(
    ['ERR_TOO_MANY_REDIRECTS', 'ERR_INVALID_REDIRECT', 'ERR_UNSAFE_REDIRECT'],
    'invalid_response',
    false,
    'The site redirects in a way that cannot be followed',
  ),
  {
    match: (n) =>
      /^ERR_(INVALID_RESPONSE|INVALID_HTTP_RESPONSE|RESPONSE_HEADERS_|CONTENT_DECODING_FAILED|INVALID_CHUNKED_ENCODING|ENCODING_CONVERSION_FAILED)/.test(
        n,
      ),
    code: 'invalid_response',
    retryable: false,
    message: 'The site sent a response that cannot be rendered',
  },
  rule(
    ['ERR_ABORTED'],
    'invalid_response',
    false,
    'The address did not produce a page to render (it may be a file download)',
  ),
  rule(
    [
      'ERR_UNSAFE_PORT',
      'ERR_BLOCKED_BY_CLIENT',
      'ERR_BLOCKED_BY_ADMINISTRATOR',
      'ERR_BLOCKED_BY_RESPONSE',
      'ERR_ACCESS_DENIED',
    ],
    'blocked',
    false,
    'The connection to this address is not allowed',
  ),
  rule(
    ['ERR_DISALLOWED_URL_SCHEME', 'ERR_UNKNOWN_URL_SCHEME', 'ERR_INVALID_URL'],
    'invalid_response',
    false,
    'The address cannot be opened by the browser',
  ),
  {
    match: (n) => PROXY_ERROR.test(n),
    code: 'navigation_failed',
    retryable: true,
    message: 'The connection to the site could not be established through the capture proxy',
  },
];

function rule(names: string[], code: CaptureErrorCode, retryable: boolean, message: string): NetErrorRule {
  return { match: (n) => names.includes(n), code, retryable, message };
}

/**
 * Turns a failed main-document navigation into a CaptureError. The proxy's explanation, when it has one,
 * wins over Chromium's generic error: Chromium only sees "tunnel failed", the proxy knows the address was
 * private (not retryable) or the upstream timed out (retryable).
 */
export function navigationFailure(input: {
  errorText: string | undefined;
  url: string;
  explain?: ExplainNetworkError | undefined;
  cause?: unknown;
}): CaptureError {
  const { errorText, url, explain, cause } = input;
  const name = netErrorName(errorText);
  const explained = safeExplain(explain, url);
  if (explained?.kind === 'vantage') return new CaptureError('vantage_unavailable', explained.reason, true, { cause });
  if (explained) {
    return new CaptureError(
      explained.retryable ? 'navigation_failed' : 'blocked',
      explained.reason,
      explained.retryable,
      { cause },
    );
  }
  const matched = name ? NET_ERROR_RULES.find((r) => r.match(name)) : undefined;
  if (matched) return new CaptureError(matched.code, `${matched.message} (net::${name})`, matched.retryable, { cause });
  const detail = name ? `net::${name}` : (errorText ?? 'unknown error');
  return new CaptureError('navigation_failed', `The page could not be loaded (${detail})`, true, { cause });
}

/** A proxy explanation for a main document that did arrive but with an error status (plain-HTTP block page). */
export function blockedResponse(url: string, explain: ExplainNetworkError | undefined): CaptureError | undefined {
  const explained = safeExplain(explain, url);
  if (!explained) return undefined;
  if (explained.kind === 'vantage') return new CaptureError('vantage_unavailable', explained.reason, true);
  return new CaptureError(explained.retryable ? 'navigation_failed' : 'blocked', explained.reason, explained.retryable);
}

function safeExplain(
  explain: ExplainNetworkError | undefined,
  url: string,
): { reason: string; retryable: boolean; kind?: string } | undefined {
  if (!explain) return undefined;
  try {
    return explain(url);
  } catch {
    return undefined; // a faulty explainer must not hide the real failure
  }
}
