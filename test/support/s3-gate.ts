import http from 'node:http';
import type net from 'node:net';

/**
 * A loopback HTTP proxy in front of an S3 endpoint that can hold back one request: a slow S3 write on demand.
 * Requests pass through unchanged (the Host header too, so SigV4 signatures still verify); `holdNext` makes the
 * next request that matches wait at the proxy, before it reaches S3, until the test releases it.
 */
export interface S3Gate {
  endpoint: string;
  /** Resolves once a matching request is held; `release` forwards it, and resolves with S3's status. */
  holdNext(matches: (method: string, path: string) => boolean): Promise<{ release(): Promise<number> }>;
  close(): Promise<void>;
}

export async function startS3Gate(target: string): Promise<S3Gate> {
  const upstream = new URL(target);
  let armed: {
    matches: (method: string, path: string) => boolean;
    held: (h: { release(): Promise<number> }) => void;
  } | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const forward = () =>
        new Promise<number>((resolve) => {
          const out = http.request(
            {
              host: upstream.hostname,
              port: upstream.port,
              method: req.method,
              path: req.url,
              headers: req.headers,
            },
            (answer) => {
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              answer.pipe(res);
              answer.on('end', () => resolve(answer.statusCode ?? 502));
            },
          );
          out.on('error', () => {
            res.writeHead(502).end();
            resolve(502);
          });
          out.end(Buffer.concat(chunks));
        });
      const gate = armed;
      if (gate?.matches(req.method ?? '', req.url ?? '')) {
        armed = null;
        gate.held({ release: forward });
      } else void forward();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    holdNext: (matches) => new Promise((held) => (armed = { matches, held })),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
