/**
 * A TCP tunnel to an already checked address through a vantage's upstream proxy: HTTP CONNECT
 * (RFC 9110 9.3.6) or SOCKS5 (RFC 1928, through the `socks` library). The destination is always the IP the
 * address policy checked, never a name, so the upstream resolves nothing and cannot be sent somewhere the
 * policy refused.
 *
 * Which side failed matters: the upstream itself not answering (refused, timed out, refused our credentials,
 * not speaking its protocol) is the vantage being down (`stage: 'upstream'`), while the upstream answering that
 * it could not reach the destination is the destination's failure (`stage: 'destination'`).
 */
import net from 'node:net';

export class UpstreamTunnelError extends Error {
  override readonly name = 'UpstreamTunnelError';
  constructor(
    readonly stage: 'upstream' | 'destination',
    message: string,
  ) {
    super(message);
  }
}

const MAX_RESPONSE_HEAD = 16 * 1024;

export async function openUpstreamTunnel(
  upstream: URL,
  address: string,
  port: number,
  timeoutMs: number,
): Promise<net.Socket> {
  const proxySocket = await connectToUpstream(upstream, timeoutMs);
  try {
    return upstream.protocol === 'socks5:'
      ? await socksConnect(proxySocket, upstream, address, port, timeoutMs)
      : await httpConnect(proxySocket, upstream, address, port, timeoutMs);
  } catch (err) {
    proxySocket.destroy();
    throw err;
  }
}

/** Whether the upstream proxy accepts a TCP connection now (a vantage without an exit probe is checked so). */
export async function checkUpstream(upstream: URL, timeoutMs: number): Promise<void> {
  (await connectToUpstream(upstream, timeoutMs)).destroy();
}

function connectToUpstream(upstream: URL, timeoutMs: number): Promise<net.Socket> {
  const host = upstream.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port: Number(upstream.port) });
    const timer = setTimeout(() => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.once('error', (err) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new UpstreamTunnelError('upstream', `the upstream proxy is unreachable (${err.message})`));
    });
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
  });
}

async function socksConnect(
  socket: net.Socket,
  upstream: URL,
  address: string,
  port: number,
  timeoutMs: number,
): Promise<net.Socket> {
  // The SOCKS library loads with the first SOCKS5 upstream, not with every process that may open a tunnel.
  const { SocksClient } = await import('socks');
  try {
    const { socket: tunnel } = await SocksClient.createConnection({
      existing_socket: socket,
      proxy: {
        host: upstream.hostname,
        port: Number(upstream.port),
        type: 5,
        ...(upstream.username ? { userId: decodeURIComponent(upstream.username) } : {}),
        ...(upstream.password ? { password: decodeURIComponent(upstream.password) } : {}),
      },
      destination: { host: address, port },
      command: 'connect',
      timeout: timeoutMs,
    });
    return tunnel;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // The upstream answered with a SOCKS5 reply code other than success: it tried the destination.
    const stage = /rejected connection/i.test(message) && !/authentication/i.test(message) ? 'destination' : 'upstream';
    throw new UpstreamTunnelError(stage, `the upstream proxy: ${message}`);
  }
}

function httpConnect(
  socket: net.Socket,
  upstream: URL,
  address: string,
  port: number,
  timeoutMs: number,
): Promise<net.Socket> {
  const authority = net.isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`;
  const credentials = upstream.username
    ? `Proxy-Authorization: Basic ${Buffer.from(
        `${decodeURIComponent(upstream.username)}:${decodeURIComponent(upstream.password)}`,
      ).toString('base64')}\r\n`
    : '';
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const fail = (err: UpstreamTunnelError) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(
      () => fail(new UpstreamTunnelError('upstream', 'the upstream proxy did not answer CONNECT in time')),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > MAX_RESPONSE_HEAD)
          fail(new UpstreamTunnelError('upstream', 'the upstream proxy sent an oversized CONNECT answer'));
        return;
      }
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
      const statusLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      if (status >= 200 && status < 300) {
        // Paused, like a socket nobody reads yet: the caller's pipe or request resumes it.
        socket.pause();
        const rest = head.subarray(end + 4);
        if (rest.length > 0) socket.unshift(rest);
        resolve(socket);
        return;
      }
      socket.destroy();
      // 407 (our credentials) or an answer that is no HTTP at all: the vantage is not usable. Any other
      // status is the upstream saying the destination failed.
      const stage = status === 407 || status === 0 ? 'upstream' : 'destination';
      reject(new UpstreamTunnelError(stage, `the upstream proxy answered CONNECT with "${statusLine}"`));
    };
    const onError = (err: Error) =>
      fail(new UpstreamTunnelError('upstream', `the upstream proxy failed: ${err.message}`));
    const onClose = () =>
      fail(new UpstreamTunnelError('upstream', 'the upstream proxy closed the connection during CONNECT'));
    socket.on('data', onData);
    socket.once('error', onError);
    socket.once('close', onClose);
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${credentials}\r\n`);
  });
}
