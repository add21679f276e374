/**
 * Observes the address a vantage point exits from (docs/evidence.md, Vantage points): one GET of
 * the vantage's `exitProbeUrl` through the vantage's own egress proxy — so the probe's destination is checked
 * by the address policy like a page's, and it leaves through the same upstream — whose answer is the caller's
 * address as that server saw it (plain text, or JSON with `ip`, `address` or `origin`).
 */
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { withTimeout } from '../infra/deadline.js';
import { parseIp } from './address-policy.js';

export class ExitProbeError extends Error {
  override readonly name = 'ExitProbeError';
}

const MAX_BODY = 4096;

/** Asks `probeUrl` through the forward proxy at `proxyUrl` (http://127.0.0.1:port); resolves to the address it saw. */
export async function probeExitAddress(proxyUrl: string, probeUrl: string, timeoutMs = 10_000): Promise<string> {
  const target = new URL(probeUrl);
  const proxy = new URL(proxyUrl);
  const body = await withTimeout(
    target.protocol === 'https:' ? getThroughTunnel(proxy, target) : getThroughProxy(proxy, target),
    timeoutMs,
    () => new ExitProbeError(`exit probe gave no answer within ${timeoutMs} ms`),
  );
  return parseExitAnswer(body);
}

/** The address in a probe's answer, canonical; throws when there is none. */
export function parseExitAnswer(body: string): string {
  let candidate = body.trim();
  if (candidate.startsWith('{')) {
    try {
      const json = JSON.parse(candidate) as Record<string, unknown>;
      candidate = String(json['ip'] ?? json['address'] ?? json['origin'] ?? '');
    } catch {
      throw new ExitProbeError('the exit probe answered with malformed JSON');
    }
  }
  candidate = candidate.split(',')[0]!.trim();
  const ip = net.isIP(candidate) !== 0 ? parseIp(candidate) : undefined;
  if (!ip)
    throw new ExitProbeError(`the exit probe's answer is not an IP address: ${JSON.stringify(body.slice(0, 80))}`);
  return ip.toString();
}

function getThroughProxy(proxy: URL, target: URL): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: proxy.hostname,
        port: Number(proxy.port),
        method: 'GET',
        path: target.href,
        headers: { host: target.host },
      },
      (res) => readAnswer(res, resolve, reject),
    );
    req.on('error', (err) => reject(new ExitProbeError(`exit probe failed: ${err.message}`)));
    req.end();
  });
}

function getThroughTunnel(proxy: URL, target: URL): Promise<string> {
  const port = target.port ? Number(target.port) : 443;
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: proxy.hostname,
      port: Number(proxy.port),
      method: 'CONNECT',
      path: `${target.hostname}:${port}`,
    });
    req.on('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        reject(new ExitProbeError(`exit probe tunnel refused: ${res.statusCode}`));
        return;
      }
      const secure = tls.connect({ socket, servername: net.isIP(target.hostname) ? undefined : target.hostname });
      const get = http.request(
        {
          method: 'GET',
          path: `${target.pathname}${target.search}`,
          headers: { host: target.host },
          createConnection: () => secure,
        },
        (answer) => readAnswer(answer, resolve, reject),
      );
      get.on('error', (err) => reject(new ExitProbeError(`exit probe failed: ${err.message}`)));
      get.end();
    });
    req.on('error', (err) => reject(new ExitProbeError(`exit probe failed: ${err.message}`)));
    req.end();
  });
}

function readAnswer(res: http.IncomingMessage, resolve: (body: string) => void, reject: (err: Error) => void): void {
  if (res.statusCode !== 200) {
    res.resume();
    reject(new ExitProbeError(`exit probe answered ${res.statusCode}`));
    return;
  }
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    body += chunk;
    if (body.length > MAX_BODY) res.destroy(new Error('answer too long'));
  });
  res.on('end', () => resolve(body));
  res.on('error', (err) => reject(new ExitProbeError(`exit probe failed: ${err.message}`)));
}
