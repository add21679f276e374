/**
 * Pure helpers that turn the header shapes Chromium reports over CDP into the shapes the capture keeps:
 * ordered pairs for the WARC records and the redacted JSON object of the `headers` artifact (spec 2.4).
 */
import { STATUS_CODES } from 'node:http';
import { redactedValue } from '../domain/header-redaction.js';

export type HeaderPairs = Array<[string, string]>;
/** The `headers` artifact: lower-case names; a repeated header becomes an array in received order. */
export type HeadersArtifact = Record<string, string | string[]>;

/**
 * Parses the raw header block of an HTTP/1.x response (CDP `headersText`), keeping order and repeats.
 * Returns undefined when the text has no usable header lines.
 */
export function parseHeadersText(text: string | undefined): HeaderPairs | undefined {
  if (!text) return undefined;
  const pairs: HeaderPairs = [];
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    if (i === 0 && /^HTTP\/\d/i.test(line)) continue; // status line
    if (line === '') continue;
    if (/^[ \t]/.test(line) && pairs.length > 0) {
      // obsolete line folding: continuation of the previous value
      const last = pairs[pairs.length - 1]!;
      last[1] = `${last[1]} ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    pairs.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  return pairs.length > 0 ? pairs : undefined;
}

/** CDP `Network.Headers` joins repeated headers with "\n"; split them back into pairs. */
export function pairsFromHeaderObject(headers: Record<string, unknown> | undefined): HeaderPairs {
  const pairs: HeaderPairs = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    for (const part of String(value).split('\n')) pairs.push([name, part]);
  }
  return pairs;
}

/** Request headers for a NetworkExchange: one value per name, repeats joined with ", ". */
export function joinHeaderObject(headers: Record<string, unknown> | undefined): Record<string, string> {
  const joined: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) joined[name] = String(value).split('\n').join(', ');
  return joined;
}

/** Builds the `headers` artifact: names lower-cased, every Set-Cookie (or other credential) value replaced by "[redacted]". */
export function headersArtifact(pairs: HeaderPairs): HeadersArtifact {
  const grouped = new Map<string, string[]>();
  for (const [rawName, rawValue] of pairs) {
    const name = rawName.toLowerCase();
    const value = redactedValue(name, rawValue);
    const values = grouped.get(name);
    if (values) values.push(value);
    else grouped.set(name, [value]);
  }
  const artifact: HeadersArtifact = {};
  for (const [name, values] of grouped) artifact[name] = values.length === 1 ? values[0]! : values;
  return artifact;
}

/** CDP `Response.protocol` ("http/1.1", "h2", "h3", …) → the version a WARC status line carries. */
export function httpVersionOf(protocol: string | undefined, headersText?: string): string {
  const fromText = headersText ? /^(HTTP\/\d(?:\.\d)?)\s/i.exec(headersText)?.[1] : undefined;
  if (fromText) return fromText.toUpperCase();
  const p = (protocol ?? '').toLowerCase();
  if (p === 'http/1.0') return 'HTTP/1.0';
  if (p === 'h2' || p === 'http/2' || p === 'http/2.0') return 'HTTP/2';
  if (p === 'h3' || p.startsWith('h3-') || p === 'quic' || p === 'http/3') return 'HTTP/3';
  return 'HTTP/1.1';
}

/** HTTP/2 and HTTP/3 carry no reason phrase; fall back to the standard one. */
export function statusTextOf(status: number, statusText: string | undefined): string {
  return statusText || STATUS_CODES[status] || '';
}
