// The worker's filtering forward proxy (DESIGN decision 6). Chromium is started with
// `--proxy-server=<url> --proxy-bypass-list=<-loopback>`, so every connection it makes — the page, its
// redirects and subresources, https tunnels — arrives here. For each one the proxy resolves the host
// itself, checks every address with the policy and connects to a checked address, so a name that
// re-resolves to a private address between submission and fetch (DNS rebinding) is still refused.
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { AddressPolicy } from './address-policy.js';
import type { ConnectionLog } from './connection-log.js';
import { describeError, normaliseHost, resolveAndCheck, type Resolver } from './resolve.js';
import { openUpstreamTunnel, UpstreamTunnelError } from './upstream-tunnel.js';

export interface EgressLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface EgressProxyOptions {
  policy: AddressPolicy;
  resolve?: Resolver;
  resolveTimeoutMs?: number;
  /** Per address tried; default 10 s. */
  connectTimeoutMs?: number;
  /** A tunnel or upstream exchange with no traffic for this long is closed; default 120 s. */
  idleTimeoutMs?: number;
  /** How long explain() remembers a refused or failed host; default 10 min, at most `explainMaxHosts` hosts. */
  explainWindowMs?: number;
  explainMaxHosts?: number;
  /** pino-compatible. */
  log?: EgressLogger;
  /** Where every connection made is recorded, for the captures' provenance records (docs/capturing.md, Provenance). */
  connections?: ConnectionLog;
  /**
   * A vantage's upstream proxy: every connection is a tunnel through it to the checked address,
   * never a direct one. When it does not answer, the failure is kind 'vantage'.
   */
  upstream?: URL;
}

export type EgressFailureKind = 'blocked' | 'dns' | 'connect' | 'vantage';

export interface EgressExplanation {
  kind: EgressFailureKind;
  reason: string;
  retryable: boolean;
}

export interface EgressProxyStats {
  tunnelRequests: number;
  httpRequests: number;
  blocked: number;
  upstreamFailures: number;
  openTunnels: number;
  openClientSockets: number;
  openUpstreamSockets: number;
}

export interface EgressProxy {
  /** `http://127.0.0.1:<port>`, for `--proxy-server`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
  /** Why connections to this URL's host were refused or failed recently, if they were. */
  explain(url: string): EgressExplanation | undefined;
  stats(): EgressProxyStats;
}

/** The Chromium switches that route every request, loopback included, through the proxy. */
export function chromiumProxyArgs(proxy: Pick<EgressProxy, 'url'>): string[] {
  return [`--proxy-server=${proxy.url}`, '--proxy-bypass-list=<-loopback>'];
}

// RFC 9110 7.6.1 hop-by-hop fields, plus the proxy ones; `expect` because this proxy already answered it.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

type Outcome = { kind: 'ok'; socket: net.Socket } | { kind: EgressFailureKind; status: 403 | 502; reason: string };

// A vantage whose proxy does not answer fails the capture; it is never replaced by a direct connection.
const VANTAGE_DOWN = 'The vantage point is unavailable';

/** What one proxy holds while it runs: its settings, its sockets, the failures explain() answers from, its counters. */
interface ProxyState {
  readonly options: EgressProxyOptions;
  readonly connectTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly explainWindowMs: number;
  readonly explainMaxHosts: number;
  readonly log: EgressLogger | undefined;
  readonly clientSockets: Set<net.Socket>;
  readonly upstreamSockets: Set<net.Socket>;
  readonly failures: Map<string, EgressExplanation & { at: number }>;
  readonly counters: {
    tunnelRequests: number;
    httpRequests: number;
    blocked: number;
    upstreamFailures: number;
    openTunnels: number;
  };
}

export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const proxy: ProxyState = {
    options,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 120_000,
    explainWindowMs: options.explainWindowMs ?? 10 * 60_000,
    explainMaxHosts: options.explainMaxHosts ?? 1_000,
    log: options.log,
    clientSockets: new Set(),
    upstreamSockets: new Set(),
    failures: new Map(),
    counters: { tunnelRequests: 0, httpRequests: 0, blocked: 0, upstreamFailures: 0, openTunnels: 0 },
  };
  const server = proxyServer(proxy);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    explain: (url) => explain(proxy, url),
    stats: () => ({
      ...proxy.counters,
      openClientSockets: proxy.clientSockets.size,
      openUpstreamSockets: proxy.upstreamSockets.size,
    }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const s of proxy.clientSockets) s.destroy();
        for (const s of proxy.upstreamSockets) s.destroy();
      }),
  };
}

/** The HTTP server Chromium talks to: plain requests, CONNECT tunnels, and refusals of the rest. */
function proxyServer(proxy: ProxyState): http.Server {
  const server = http.createServer();
  server.on('connection', (socket: net.Socket) => {
    proxy.clientSockets.add(socket);
    socket.once('close', () => proxy.clientSockets.delete(socket));
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    onRequest(proxy, req, res).catch((err: unknown) => {
      proxy.log?.warn({ err: describeError(err) }, 'egress proxy request handler failed');
      if (!res.headersSent) sendText(res, 502, 'egress proxy error');
      else res.destroy();
    });
  });
  server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    onConnect(proxy, req, socket, head).catch((err: unknown) => {
      proxy.log?.warn({ err: describeError(err) }, 'egress proxy CONNECT handler failed');
      socket.destroy();
    });
  });
  // Chromium tunnels WebSockets with CONNECT; a plain-HTTP upgrade through the proxy is not supported.
  server.on('upgrade', (_req: http.IncomingMessage, socket: Duplex) => {
    writeRawResponse(socket, 501, 'protocol upgrades are not proxied; use CONNECT');
  });
  server.on('clientError', (_err: Error, socket: Duplex) => {
    if (socket.writable) writeRawResponse(socket, 400, 'bad request');
    else socket.destroy();
  });
  return server;
}

/** Why connections to this URL's host were refused or failed within the explain window, if they were. */
function explain(proxy: ProxyState, url: string): EgressExplanation | undefined {
  let host: string;
  try {
    host = normaliseHost(new URL(url).hostname);
  } catch {
    return undefined;
  }
  const entry = proxy.failures.get(host);
  if (!entry) return undefined;
  if (Date.now() - entry.at > proxy.explainWindowMs) {
    proxy.failures.delete(host);
    return undefined;
  }
  return { kind: entry.kind, reason: entry.reason, retryable: entry.retryable };
}

function remember(proxy: ProxyState, host: string, explanation: EgressExplanation): void {
  proxy.failures.delete(host);
  proxy.failures.set(host, { ...explanation, at: Date.now() });
  while (proxy.failures.size > proxy.explainMaxHosts) {
    const oldest = proxy.failures.keys().next().value;
    if (oldest === undefined) break;
    proxy.failures.delete(oldest);
  }
}

/** Resolve, check every address, connect to the first checked address that answers. */
async function openChecked(proxy: ProxyState, rawHost: string, port: number, via: 'tunnel' | 'http'): Promise<Outcome> {
  const host = normaliseHost(rawHost);
  const check = await resolveAndCheck(
    host,
    proxy.options.policy,
    proxy.options.resolve,
    proxy.options.resolveTimeoutMs,
    port,
  );
  if (check.kind === 'blocked') {
    proxy.counters.blocked++;
    // What the page, the WARC and the capture's error say names no resolved address (no DNS oracle);
    // the log has it.
    const reason = check.address === host ? check.reason : `${host} resolves to an address that is not allowed`;
    remember(proxy, host, { kind: 'blocked', reason, retryable: false });
    proxy.log?.warn({ host, port, address: check.address, why: check.reason }, 'egress refused: address not allowed');
    return { kind: 'blocked', status: 403, reason };
  }
  if (check.kind === 'unresolved') {
    proxy.counters.upstreamFailures++;
    const reason = `cannot resolve ${host}: ${check.detail}`;
    remember(proxy, host, { kind: 'dns', reason, retryable: true });
    proxy.log?.info({ host, port }, 'egress failed: name not resolved');
    return { kind: 'dns', status: 502, reason };
  }
  let lastError = 'no address';
  for (const address of check.addresses) {
    try {
      const socket = await connectPinned(proxy, address, port);
      proxy.failures.delete(host);
      proxy.options.connections?.record({ host, port, address, via });
      return { kind: 'ok', socket };
    } catch (err) {
      if (err instanceof UpstreamTunnelError && err.stage === 'upstream') {
        proxy.counters.upstreamFailures++;
        const reason = `${VANTAGE_DOWN}: ${err.message}`;
        remember(proxy, host, { kind: 'vantage', reason, retryable: true });
        proxy.log?.warn({ host, port, err: err.message }, 'egress failed: vantage upstream unreachable');
        return { kind: 'vantage', status: 502, reason };
      }
      lastError = `${address}: ${describeError(err)}`;
    }
  }
  proxy.counters.upstreamFailures++;
  const reason = `cannot connect to ${host} port ${port} (${lastError})`;
  remember(proxy, host, { kind: 'connect', reason, retryable: true });
  proxy.log?.info({ host, port }, 'egress failed: upstream unreachable');
  return { kind: 'connect', status: 502, reason };
}

/** Connects to an already checked IP; an IP literal means net.connect does no lookup of its own. */
async function connectPinned(proxy: ProxyState, address: string, port: number): Promise<net.Socket> {
  if (proxy.options.upstream) {
    const socket = await openUpstreamTunnel(proxy.options.upstream, address, port, proxy.connectTimeoutMs);
    proxy.upstreamSockets.add(socket);
    socket.once('close', () => proxy.upstreamSockets.delete(socket));
    return socket;
  }
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port });
    proxy.upstreamSockets.add(socket);
    socket.once('close', () => proxy.upstreamSockets.delete(socket));
    const timer = setTimeout(
      () => socket.destroy(new Error(`connect timed out after ${proxy.connectTimeoutMs} ms`)),
      proxy.connectTimeoutMs,
    );
    const onError = (err: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    socket.once('error', onError);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve(socket);
    });
  });
}

async function onConnect(proxy: ProxyState, req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
  proxy.counters.tunnelRequests++;
  client.on('error', () => client.destroy());
  const target = parseAuthority(req.url ?? '');
  if (!target) {
    writeRawResponse(client, 400, `CONNECT needs host:port, got ${JSON.stringify(req.url)}`);
    return;
  }
  const outcome = await openChecked(proxy, target.host, target.port, 'tunnel');
  if (outcome.kind !== 'ok') {
    writeRawResponse(client, outcome.status, outcome.reason);
    return;
  }
  const upstream = outcome.socket;
  if (client.destroyed) {
    upstream.destroy();
    return;
  }
  proxy.counters.openTunnels++;
  let closed = false;
  const teardown = (): void => {
    if (!closed) {
      closed = true;
      proxy.counters.openTunnels--;
    }
    client.destroy();
    upstream.destroy();
  };
  upstream.on('error', teardown);
  client.on('error', teardown);
  // The client is gone: nothing the upstream sends can be delivered.
  client.on('close', teardown);
  // The upstream finished: let the client drain what was piped, then close (a reset closes at once). A
  // client that keeps its side open after everything was flushed gets a short grace period.
  upstream.on('close', (hadError) => {
    if (hadError) return teardown();
    client.once('finish', () => setTimeout(teardown, 5_000).unref());
    client.end();
    // The pipe into the upstream is gone; keep reading (and dropping) so the client's FIN is seen.
    client.resume();
  });
  upstream.setTimeout(proxy.idleTimeoutMs, teardown);
  if (client instanceof net.Socket) client.setTimeout(proxy.idleTimeoutMs, teardown);
  client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  if (head.length > 0) upstream.write(head);
  upstream.pipe(client);
  client.pipe(upstream);
}

async function onRequest(proxy: ProxyState, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  proxy.counters.httpRequests++;
  let target: URL;
  try {
    target = new URL(req.url ?? '');
  } catch {
    sendText(res, 400, 'this is a forward proxy: send absolute-URI requests (http://host/path) or CONNECT');
    return;
  }
  if (target.protocol !== 'http:') {
    sendText(res, 400, `scheme ${target.protocol} is not proxied here; https goes through CONNECT`);
    return;
  }
  const port = target.port === '' ? 80 : Number(target.port);
  const outcome = await openChecked(proxy, target.hostname, port, 'http');
  if (outcome.kind !== 'ok') {
    sendText(res, outcome.status, outcome.reason);
    req.resume();
    return;
  }
  const socket = outcome.socket;
  if (res.destroyed || req.destroyed) {
    socket.destroy();
    return;
  }
  const headers = forwardHeaders(req.rawHeaders);
  if (!headers.some((_, i) => i % 2 === 0 && headers[i]?.toLowerCase() === 'host')) headers.push('Host', target.host);
  const upstreamReq = http.request({
    method: req.method,
    path: `${target.pathname}${target.search}`,
    headers,
    setHost: false,
    // No agent: the pinned socket is used once and closed, http never opens (or resolves) one itself.
    createConnection: () => socket,
  });
  upstreamReq.setTimeout(proxy.idleTimeoutMs, () =>
    upstreamReq.destroy(new Error(`upstream idle for ${proxy.idleTimeoutMs} ms`)),
  );
  upstreamReq.on('response', (upstreamRes) => {
    upstreamRes.on('error', () => res.destroy());
    res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, forwardHeaders(upstreamRes.rawHeaders));
    upstreamRes.pipe(res);
  });
  upstreamReq.on('error', (err) => {
    socket.destroy();
    if (res.destroyed) return; // the client left first; nothing to report
    if (!res.headersSent) {
      proxy.counters.upstreamFailures++;
      sendText(res, 502, `upstream ${target.host} failed: ${describeError(err)}`);
    } else {
      res.destroy();
    }
  });
  // Client went away before the exchange finished: drop the upstream side too.
  res.on('close', () => {
    if (!res.writableFinished) upstreamReq.destroy();
  });
  req.pipe(upstreamReq);
  socket.resume(); // a tunnel through an upstream proxy comes paused
}

/** Drops hop-by-hop fields and any field the Connection header names; keeps order, case and repeats. */
function forwardHeaders(raw: string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i]!.toLowerCase();
    if (key === 'connection' || key === 'proxy-connection') {
      for (const token of raw[i + 1]!.split(',')) named.add(token.trim().toLowerCase());
    }
  }
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(key) || named.has(key)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const m = /^\[([0-9a-fA-F:.%a-zA-Z]+)\]:(\d{1,5})$/.exec(authority) ?? /^([^:[\]\s/]+):(\d{1,5})$/.exec(authority);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1]!, port };
}

function writeRawResponse(socket: Duplex, status: number, text: string): void {
  const body = Buffer.from(`${text}\n`, 'utf8');
  const head =
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\n` +
    'Content-Type: text/plain; charset=utf-8\r\n' +
    `Content-Length: ${body.length}\r\n` +
    'Connection: close\r\n\r\n';
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  // end() flushes then sends FIN; make sure the socket is gone even if the client never closes its side.
  setTimeout(() => socket.destroy(), 5_000).unref();
}

function sendText(res: http.ServerResponse, status: number, text: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
  res.end(`${text}\n`);
}
