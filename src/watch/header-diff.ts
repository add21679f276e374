/**
 * The response headers of the main document (the capture's `headers` artifact: lower-case names, a repeated header
 * as an array) compared name by name. Headers that differ on every response whatever the page says — dates, ages,
 * cookies, request and trace ids, cache validators — are listed apart as `volatile`, so a watch looks at `changes`
 * only.
 */

export type HeaderValue = string | string[];
export type HeaderMap = Record<string, HeaderValue>;

export type HeaderChange =
  | { kind: 'added'; name: string; value: HeaderValue }
  | { kind: 'removed'; name: string; baseValue: HeaderValue }
  | { kind: 'changed'; name: string; baseValue: HeaderValue; value: HeaderValue };

export interface HeaderDiff {
  changes: HeaderChange[];
  /** Changes to volatile headers, kept apart. */
  volatile: HeaderChange[];
}

const VOLATILE_NAMES = new Set([
  'date',
  'age',
  'expires',
  'last-modified',
  'set-cookie',
  'etag',
  'cf-ray',
  'server-timing',
  'report-to',
  'nel',
  'x-cache',
  'x-cache-hits',
  'x-served-by',
  'x-timer',
  'via',
  'traceparent',
  'tracestate',
  'x-amz-cf-id',
  'x-amz-id-2',
  'x-runtime',
  'x-response-time',
]);

/** Request, trace and correlation ids under any vendor prefix (x-request-id, x-amzn-requestid, x-correlation-id …). */
const VOLATILE_PATTERN = /(^|-)(request|trace|correlation|span)-?id$|^x-.*-(id|trace)$/u;

export const isVolatileHeader = (name: string) => VOLATILE_NAMES.has(name) || VOLATILE_PATTERN.test(name);

const same = (a: HeaderValue, b: HeaderValue) => JSON.stringify(a) === JSON.stringify(b);

export function diffHeaders(base: HeaderMap | null, next: HeaderMap | null): HeaderDiff {
  const before = lowerCased(base ?? {});
  const after = lowerCased(next ?? {});
  const all: HeaderChange[] = [];
  for (const name of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    const b = before[name];
    const a = after[name];
    if (b === undefined && a !== undefined) all.push({ kind: 'added', name, value: a });
    else if (a === undefined && b !== undefined) all.push({ kind: 'removed', name, baseValue: b });
    else if (a !== undefined && b !== undefined && !same(a, b))
      all.push({ kind: 'changed', name, baseValue: b, value: a });
  }
  return {
    changes: all.filter((c) => !isVolatileHeader(c.name)),
    volatile: all.filter((c) => isVolatileHeader(c.name)),
  };
}

function lowerCased(headers: HeaderMap): HeaderMap {
  const out: HeaderMap = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}
