// One outbound HTTP(S) request to a tenant-controlled URL (webhook delivery and ping, DESIGN decision 6):
// resolve once, check every address, connect only to a checked address, never follow a redirect.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import type { AddressPolicy } from './address-policy.js';
import { EgressBlockedError, NetworkRequestError, RequestTimeoutError } from './errors.js';
import { describeError, normaliseHost, portOf, resolveAndCheck, type Resolver } from './resolve.js';

export const MAX_RESPONSE_BODY_BYTES = 64 * 1024;

export interface SafeRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Deadline for the whole exchange: resolve, connect, TLS, response and body. */
  timeoutMs: number;
  policy: AddressPolicy;
  /** Extra CAs trusted for https in addition to Node's bundled roots (tests, private PKI). */
  ca?: string | Buffer | Array<string | Buffer>;
  resolve?: Resolver;
}

export interface SafeResponse {
  status: number;
  /** From the start of the call until the response body was read (or cut at 64 KiB). */
  latencyMs: number;
  /** First 64 KiB of the body, UTF-8 decoded. */
  bodyText: string;
  headers: http.IncomingHttpHeaders;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Throws EgressBlockedError (an address is not allowed), RequestTimeoutError (deadline passed) or
 * NetworkRequestError (DNS, connect, TLS, reset). Any HTTP status, 3xx included, is a result, not an error.
 */
export async function safeRequest(rawUrl: string, options: SafeRequestOptions): Promise<SafeResponse> {
  const url = new URL(rawUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`safeRequest supports http and https only, got ${url.protocol}`);
  }
  const started = performance.now();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  try {
    const host = normaliseHost(url.hostname);
    const check = await Promise.race([
      resolveAndCheck(host, options.policy, options.resolve, options.timeoutMs, portOf(url)),
      abortedPromise(deadline.signal),
    ]);
    if (check.kind === 'blocked') throw new EgressBlockedError(host, check.address, check.reason);
    if (check.kind === 'unresolved')
      throw new NetworkRequestError(`cannot resolve ${host}: ${check.detail}`, 'ENOTFOUND');
    const response = await send(url, check.addresses, options, deadline.signal);
    return { ...response, latencyMs: Math.round(performance.now() - started) };
  } catch (err) {
    if (deadline.signal.aborted && !(err instanceof EgressBlockedError))
      throw new RequestTimeoutError(options.timeoutMs);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function send(
  url: URL,
  addresses: string[],
  options: SafeRequestOptions,
  signal: AbortSignal,
): Promise<Omit<SafeResponse, 'latencyMs'>> {
  // Whatever name the socket layer asks for, it gets the checked addresses: no second resolution. The
  // hostname stays in `host`, so the Host header and TLS SNI/certificate check use the name.
  const lookup = (_hostname: string, opts: LookupOptions | number, callback: LookupCallback): void => {
    const family = typeof opts === 'number' ? opts : familyNumber(opts.family);
    let entries = addresses.map((address) => ({ address, family: isIP(address) }));
    if (family === 4 || family === 6) entries = entries.filter((e) => e.family === family);
    const first = entries[0];
    if (!first) {
      const err: NodeJS.ErrnoException = new Error(`no checked IPv${family} address for ${url.hostname}`);
      err.code = 'ENOTFOUND';
      callback(err, '', undefined);
      return;
    }
    if (typeof opts === 'object' && opts.all) callback(null, entries);
    else callback(null, first.address, first.family);
  };

  const body =
    options.body === undefined
      ? undefined
      : Buffer.isBuffer(options.body)
        ? options.body
        : Buffer.from(options.body, 'utf8');
  const headers: Record<string, string> = { ...options.headers };
  if (body && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length')) {
    headers['content-length'] = String(body.length);
  }
  const common: http.RequestOptions = {
    method: options.method ?? 'GET',
    host: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers,
    // A fresh connection per request: a pooled socket could belong to an earlier, differently checked answer.
    agent: false,
    lookup: lookup as unknown as http.RequestOptions['lookup'],
    signal,
  };

  return new Promise((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage): void => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        const bodyText = Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BODY_BYTES).toString('utf8');
        resolve({ status: res.statusCode ?? 0, bodyText, headers: res.headers });
      };
      res.on('data', (chunk: Buffer) => {
        if (done) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_RESPONSE_BODY_BYTES) {
          // Enough for a diagnostic; do not download the rest.
          finish();
          res.destroy();
        }
      });
      res.on('end', finish);
      res.on('error', (err) => (done ? undefined : reject(toNetworkError(err))));
      res.on('close', () => {
        if (!done)
          reject(
            signal.aborted
              ? new RequestTimeoutError(options.timeoutMs)
              : new NetworkRequestError('connection closed before the response body ended', 'ECONNRESET'),
          );
      });
    };
    const req =
      url.protocol === 'https:'
        ? https.request({ ...common, ca: extraTrusted(options.ca) }, onResponse)
        : http.request(common, onResponse);
    req.on('error', (err) => reject(signal.aborted ? new RequestTimeoutError(options.timeoutMs) : toNetworkError(err)));
    req.end(body);
  });
}

function extraTrusted(ca: SafeRequestOptions['ca']): Array<string | Buffer> | undefined {
  if (ca === undefined) return undefined;
  const extra = Array.isArray(ca) ? ca : [ca];
  return [...tls.rootCertificates, ...extra];
}

function familyNumber(family: LookupOptions['family']): number {
  if (family === 'IPv4') return 4;
  if (family === 'IPv6') return 6;
  return typeof family === 'number' ? family : 0;
}

function toNetworkError(err: unknown): NetworkRequestError {
  const code = err instanceof Error ? (err as NodeJS.ErrnoException).code : undefined;
  return new NetworkRequestError(describeError(err), code, { cause: err });
}

function abortedPromise(signal: AbortSignal): Promise<never> {
  const promise = new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
  });
  // It may reject after the race is decided; that must not surface as an unhandled rejection.
  promise.catch(() => undefined);
  return promise;
}
