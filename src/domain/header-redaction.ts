/**
 * Credentials never enter an artifact or the signed, public WACZ (spec 2.4): the page's `headers` artifact and
 * the WARC records both keep such a header's name and replace its value. One rule, used by the capture engine
 * (src/capture/http-headers.ts) and the WARC writer (src/archive/warc-writer.ts).
 */
export const REDACTED = '[redacted]';

/** Headers that carry credentials. */
const CREDENTIAL_HEADERS = new Set(['set-cookie', 'set-cookie2', 'cookie', 'authorization', 'proxy-authorization']);

/** The value to keep for a header: credentials are replaced by "[redacted]", the name stays. */
export const redactedValue = (name: string, value: string): string =>
  CREDENTIAL_HEADERS.has(name.toLowerCase()) ? REDACTED : value;
