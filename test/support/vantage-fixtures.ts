/**
 * Loopback stand-ins for vantage points: upstream proxies that exit from a chosen loopback address
 * (HTTP CONNECT or SOCKS5, both binding their outgoing sockets' localAddress), and a site that answers by the
 * caller's address.
 *
 *   const a = await startUpstreamProxy('http', '127.0.0.10');   // a.url = http://127.0.0.1:<port>
 *   const b = await startUpstreamProxy('socks5', '127.0.0.11'); // b.url = socks5://127.0.0.1:<port>
 *   const site = await startCallerSite();                       // site.origin = http://127.0.0.1:<port>
 *   const v = await startLoopbackVantages();                    // both proxies and the site, as VANTAGES entries
 *
 * Site routes: GET /whoami — the caller's address as text; GET /by-caller — a page whose text and background
 * colour depend on the caller's address; GET /stable — the same page for everyone.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';

export interface UpstreamProxy {
  url: string;
  /** Destinations asked for (host:port), in order. */
  asked: string[];
  close(): Promise<void>;
}

export async function startUpstreamProxy(kind: 'http' | 'socks5', exitAddress: string): Promise<UpstreamProxy> {
  const asked: string[] = [];
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const dial = (host: string, port: number, onOpen: (out: net.Socket) => void, onFail: () => void) => {
    asked.push(`${host}:${port}`);
    const out = net.connect({ host, port, localAddress: exitAddress });
    track(out);
    out.once('connect', () => onOpen(out));
    out.once('error', onFail);
  };
  const server = net.createServer((client) => {
    track(client);
    if (kind === 'http') {
      let head = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end === -1) return;
        client.off('data', onData);
        const m = /^CONNECT (\S+):(\d+) HTTP\/1\.1/.exec(head.toString('latin1'));
        if (!m) return void client.end('HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n');
        dial(
          m[1]!.replace(/^\[|\]$/g, ''),
          Number(m[2]),
          (out) => {
            client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
            out.pipe(client);
            client.pipe(out);
          },
          () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'),
        );
      };
      client.on('data', onData);
      return;
    }
    // SOCKS5, no authentication, CONNECT to an IPv4 address or a name (RFC 1928).
    let stage: 'greeting' | 'request' = 'greeting';
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (stage === 'greeting') {
        if (buf.length < 2 || buf.length < 2 + buf[1]!) return;
        buf = buf.subarray(2 + buf[1]!);
        client.write(Buffer.from([5, 0]));
        stage = 'request';
      }
      if (buf.length < 5) return;
      const atyp = buf[3]!;
      let host: string;
      let at: number;
      if (atyp === 1) {
        if (buf.length < 10) return;
        host = [...buf.subarray(4, 8)].join('.');
        at = 8;
      } else if (atyp === 3) {
        const len = buf[4]!;
        if (buf.length < 5 + len + 2) return;
        host = buf.subarray(5, 5 + len).toString();
        at = 5 + len;
      } else {
        return void client.end(Buffer.from([5, 8, 0, 1, 0, 0, 0, 0, 0, 0]));
      }
      const port = buf.readUInt16BE(at);
      client.off('data', onData);
      dial(
        host,
        port,
        (out) => {
          client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
          out.pipe(client);
          client.pipe(out);
        },
        () => client.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])),
      );
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `${kind}://127.0.0.1:${port}`,
    asked,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface CallerSite {
  origin: string;
  url(path: string): string;
  close(): Promise<void>;
}

/** Background colour /by-caller shows a caller: red for 127.0.0.10, blue for anyone else. */
export const callerColour = (address: string): string => (address === '127.0.0.10' ? '#d01010' : '#1030d0');

export async function startCallerSite(): Promise<CallerSite> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const caller = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/whoami') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${caller}\n`);
      return;
    }
    const page = (title: string, text: string, colour: string) =>
      `<!doctype html><html><head><title>${title}</title></head><body style="margin:0;background:${colour}"><h1>${text}</h1><p>Same paragraph for everyone.</p></body></html>`;
    if (path === '/by-caller') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(page('By caller', `Seen from ${caller}`, callerColour(caller)));
      return;
    }
    if (path === '/stable') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(page('Stable', 'The same for every caller', '#20a040'));
      return;
    }
    res.writeHead(404).end();
  });
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: (path) => origin + path,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Two vantages on loopback, the site they see, and their `VANTAGES` entries (src/config/vantages.ts). */
export interface LoopbackVantages {
  site: CallerSite;
  /** HTTP CONNECT, exits from 127.0.0.10. */
  ten: UpstreamProxy;
  /** SOCKS5, exits from 127.0.0.11. */
  eleven: UpstreamProxy;
  /**
   * `de-ten` ("Frankfurt (test, 127.0.0.10)", DE; its upstream URL carries the credentials `user:hunter2-secret`,
   * which nothing the service answers may show) and `fr-eleven` ("Paris (test, 127.0.0.11)", FR), each observing
   * its exit on the site's /whoami.
   */
  vantages: Array<{ id: string; label: string; region: string; upstream: string; exitProbeUrl: string }>;
  close(): Promise<void>;
}

export async function startLoopbackVantages(): Promise<LoopbackVantages> {
  const site = await startCallerSite();
  const ten = await startUpstreamProxy('http', '127.0.0.10');
  const eleven = await startUpstreamProxy('socks5', '127.0.0.11');
  const exitProbeUrl = site.url('/whoami');
  return {
    site,
    ten,
    eleven,
    vantages: [
      {
        id: 'de-ten',
        label: 'Frankfurt (test, 127.0.0.10)',
        region: 'DE',
        upstream: ten.url.replace('http://', 'http://user:hunter2-secret@'),
        exitProbeUrl,
      },
      { id: 'fr-eleven', label: 'Paris (test, 127.0.0.11)', region: 'FR', upstream: eleven.url, exitProbeUrl },
    ],
    close: async () => {
      await Promise.all([site.close(), ten.close(), eleven.close()]);
    },
  };
}
