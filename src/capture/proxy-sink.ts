/**
 * Where the browser's own traffic goes: nowhere. Chromium's default profile asks its vendor's hosts for
 * account lists and component updates (accounts.google.com, update.googleapis.com) whatever flags it is
 * given, so the browser as a whole is pointed at this proxy on loopback, which refuses every request
 * without connecting anywhere; each capture's context gets the real egress proxy (DESIGN decision 6).
 * A context opened without one fails closed here, too.
 */
import net from 'node:net';

export interface ProxySink {
  /** `http://127.0.0.1:<port>`, for `--proxy-server`. */
  readonly url: string;
  /** Hosts the browser asked for on its own, newest last (at most 100): for tests and the debug log. */
  asked(): string[];
  close(): Promise<void>;
}

const REFUSAL = 'HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';
const MAX_REMEMBERED = 100;

export async function startProxySink(): Promise<ProxySink> {
  const asked: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.setTimeout(5000, () => socket.destroy());
    socket.once('data', (chunk) => {
      // "CONNECT host:443 HTTP/1.1" or "GET http://host/path HTTP/1.1": remember the host, answer no.
      const target = chunk.toString('latin1').split(' ', 2)[1] ?? '';
      const host = target.includes('://') ? safeHost(target) : target.replace(/:\d+$/, '');
      asked.push(host);
      if (asked.length > MAX_REMEMBERED) asked.shift();
      socket.end(REFUSAL);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    asked: () => [...asked],
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function safeHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}
