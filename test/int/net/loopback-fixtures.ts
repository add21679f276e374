// Helpers for the net integration tests. Everything binds to loopback; 127.0.0.2 plays the part of a
// private address that the policy (allow-list 127.0.0.1/32) must never let through.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const ALLOWED_IP = '127.0.0.1';
export const FORBIDDEN_IP = '127.0.0.2';

/** A self-signed certificate (also its own CA) for the test names and 127.0.0.1, made with openssl. */
export async function makeTestCertificate(names: string[]): Promise<{ key: string; cert: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'cl-net-tls-'));
  try {
    const san = [...names.map((n) => `DNS:${n}`), `IP:${ALLOWED_IP}`].join(',');
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '2',
      '-subj',
      `/CN=${names[0] ?? 'test'}`,
      '-addext',
      `subjectAltName=${san}`,
    ]);
    return { key: await readFile(join(dir, 'key.pem'), 'utf8'), cert: await readFile(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A TCP listener on the forbidden address that records every connection attempt that reaches it. */
export async function startTripwire(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.end('HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nreached');
  });
  await listen(server, FORBIDDEN_IP);
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    close: () => closeServer(server, sockets),
  };
}

/** A TCP echo server on 127.0.0.1. */
export async function startEcho(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.pipe(socket);
  });
  await listen(server, ALLOWED_IP);
  return { port: (server.address() as net.AddressInfo).port, close: () => closeServer(server, sockets) };
}

/** A port on 127.0.0.1 that nothing listens on (bound, read, released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await listen(server, ALLOWED_IP);
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Stub resolver: names from the table, anything else fails like an unknown name. Never touches DNS. */
export function stubResolver(table: Record<string, string[]>): (host: string) => Promise<string[]> {
  return async (host) => {
    const answer = table[host];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answer;
  };
}

export function listen(server: net.Server, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export function closeServer(server: net.Server, sockets: Iterable<net.Socket> = []): Promise<void> {
  for (const s of sockets) s.destroy();
  if ('closeAllConnections' in server && typeof server.closeAllConnections === 'function') server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
