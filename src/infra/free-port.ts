import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
 * Every process that draws ports notes each one it hands out as a file named by the port, holding its pid, in this
 * directory, and removes its files when it exits. Another process does not draw a port whose file names a process
 * that is still running: a nats-server of a local cluster that is down (SIGKILLed, about to be started again on the
 * same port) does not lose its port to another test file of the run, which would otherwise see it free.
 */
export const PORT_RESERVATIONS = join(tmpdir(), 'capture-ledger-ports');

const running = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The files this process wrote there, removed when it exits. */
const reservedHere = new Set<string>();

/** Notes `port` as this process's (PORT_RESERVATIONS); false when a running process noted it first. */
export function reservePort(port: number): boolean {
  const file = join(PORT_RESERVATIONS, String(port));
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      if (reservedHere.size === 0)
        process.once('exit', () => {
          for (const f of reservedHere) unlinkOwn(f);
        });
      reservedHere.add(file);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        mkdirSync(PORT_RESERVATIONS, { recursive: true });
        continue;
      }
      // Where the directory cannot be written, ports are drawn as if no other process drew any.
      if (code !== 'EEXIST') return true;
      // A file that names no pid is being written by its process: held too.
      const holder = pidIn(file);
      if (holder === undefined || (holder !== null && running(holder))) return false;
      try {
        unlinkSync(file); // left by a process that has gone
      } catch {
        /* another process took it over first: the next attempt sees its pid */
      }
    }
  }
  return false;
}

/** The pid a reservation file names; null when the file is gone, undefined when it names none. */
function pidIn(file: string): number | null | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
  const pid = Number(text);
  return text !== '' && Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function unlinkOwn(file: string): void {
  try {
    if (pidIn(file) === process.pid) unlinkSync(file);
  } catch {
    /* already gone */
  }
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a child process to listen on; never one this process
 * handed out before, nor one another running process of this machine handed out through this function.
 *
 * Chosen at random below the kernel's ephemeral range: a port the kernel picked for `listen(0)` lies inside that
 * range, where any process's next outgoing connection may take it as its source port before the child binds it
 * (seen as EADDRINUSE while other tests ran beside a cluster start). A local cluster takes about 18 ports before
 * any child binds one: drawn at random and probed alone, two of them can be one port (about one cluster start in
 * a hundred, by the birthday bound; a role would then exit with EADDRINUSE). So a port once handed out is not
 * drawn again, by this process or (PORT_RESERVATIONS) by another while this one runs.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow() - 1;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (high - LOWEST + 1));
    if (handedOut.has(port) || !(await bindable(port))) continue;
    if (handedOut.has(port)) continue; // another call took it while this one probed
    if (!reservePort(port)) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free TCP port found between ${LOWEST} and ${high} on 127.0.0.1`);
}
