import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The lowest port the kernel hands out as the source port of outgoing connections (Linux; 32768 elsewhere). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2048 ? low : 32768;
  } catch {
    return 32768;
  }
}

const LOWEST = 15_000;

const bindable = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/** Ports this process handed out: still free when probed again, until the child they were meant for binds them. */
const handedOut = new Set<number>();

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a child process to listen on; never one this process
 * handed out before.
 *
 * Chosen at random below the kernel's ephemeral range: a port the kernel picked for `listen(0)` lies inside that
 * range, where any process's next outgoing connection may take it as its source port before the child binds it
 * (seen as EADDRINUSE while other tests ran beside a cluster start). A local cluster takes about 18 ports before
 * any child binds one: drawn at random and probed alone, two of them can be one port (about one cluster start in
 * a hundred, by the birthday bound; a role would then exit with EADDRINUSE). So a port once handed out is not
 * drawn again.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow() - 1;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (high - LOWEST + 1));
    if (handedOut.has(port) || !(await bindable(port))) continue;
    if (handedOut.has(port)) continue; // another call took it while this one probed
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free TCP port found between ${LOWEST} and ${high} on 127.0.0.1`);
}
