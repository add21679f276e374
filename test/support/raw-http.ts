import { connect } from 'node:net';

/** What a raw socket saw: the status line's code, the body, and any socket error while sending or reading. */
export interface RawExchange {
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** `EPIPE`, `ECONNRESET`… when the server closed while the client still had bytes to send. */
  error: string | null;
}

/**
 * One HTTP/1.1 request on a fresh socket, `Connection: close`, the body written in 64 KiB chunks as the socket
 * takes them — what a plain client does, without the retries and buffering of fetch. After the headers and
 * the first chunk it pauses until the server answers or `pauseMs` passes, like a client on a slow link: a
 * server that answers before reading the body has closed by then, and the rest of the body meets a reset.
 * Resolves when the socket closes; never rejects, so a test can assert on the error.
 */
export function rawExchange(
  baseUrl: string,
  method: string,
  path: string,
  body: Buffer,
  headers: Record<string, string> = {},
  pauseMs = 300,
): Promise<RawExchange> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    let error: string | null = null;
    socket.on('data', (c: Buffer) => received.push(c));
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    socket.on('close', () => {
      const text = Buffer.concat(received).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      const lines = head.split('\r\n');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '');
      const hs: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        if (i > 0) hs[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({ status: m ? Number(m[1]) : null, headers: hs, body: split < 0 ? '' : text.slice(split + 4), error });
    });
    const head = {
      host: url.host,
      'content-type': 'application/json',
      'content-length': String(body.length),
      connection: 'close',
      ...headers,
    };
    socket.write(
      `${method} ${path} HTTP/1.1\r\n${Object.entries(head)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\r\n')}\r\n\r\n`,
    );
    let offset = 0;
    let paused = false;
    const pump = (): void => {
      while (offset < body.length && !socket.destroyed) {
        const chunk = body.subarray(offset, offset + 65536);
        offset += chunk.length;
        const more = socket.write(chunk);
        if (!paused) {
          paused = true;
          const resume = () => {
            clearTimeout(timer);
            socket.off('data', resume);
            pump();
          };
          const timer = setTimeout(resume, pauseMs);
          socket.once('data', resume);
          return;
        }
        if (!more) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}
