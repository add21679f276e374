import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/infra/free-port.js';
import { stopStaleProcess } from '../../src/infra/stale-process.js';
import { stopChild } from '../../src/infra/stop-child.js';

/**
 * A real S3 server for tests: Debian 12's radosgw (Ceph 16.2 Pacific) over a throw-away one-node Ceph cluster —
 * one ceph-mon, one ceph-osd on memstore (RAM, nothing on disk but logs), auth none — on free loopback ports in a
 * short temp dir. ops/install-deps.sh installs the three packages for `make test` (INSTALL_DEPS=test).
 *
 * Facts this depends on: with auth none every messenger mode must be `crc`, or radosgw retries forever
 * with error -13; beast needs `tcp_nodelay=1`, or each request waits 40–50 ms for a delayed ACK; the rgw pools are
 * created up front, or the first bucket operations wait about 2 s each for radosgw to create them.
 *
 * A test killed before `stop()` leaves its daemons running: the next start stops those (their pids are in the
 * dead owner's directory) and removes the directory.
 */
export interface Radosgw {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The cluster's temp directory (configuration, logs, pid files). */
  dir: string;
  /** The pids of the running daemons. */
  pids(): number[];
  /** Stop only the S3 gateway (the storage outage of the failure tests); the cluster under it keeps its data. */
  stopGateway(): Promise<void>;
  /** Start the gateway again on the same port. */
  startGateway(): Promise<void>;
  stop(): Promise<void>;
}

const run = promisify(execFile);
const DIR_PREFIX = 'clrgw-';
const BINARIES = ['ceph-mon', 'ceph-osd', 'radosgw', 'radosgw-admin', 'monmaptool', 'ceph'] as const;
const RGW_POOLS = [
  '.rgw.root',
  'default.rgw.control',
  'default.rgw.meta',
  'default.rgw.log',
  'default.rgw.buckets.index',
  'default.rgw.buckets.data',
  'default.rgw.buckets.non-ec',
];

/** Whether the Ceph binaries are installed (`make test` installs them; a test may skip with this reason). */
export function radosgwMissing(): string | null {
  const absent = BINARIES.filter((b) => !existsSync(`/usr/bin/${b}`));
  return absent.length ? `not installed: ${absent.join(', ')} (INSTALL_DEPS=test bash ops/install-deps.sh)` : null;
}

function cephConf(dir: string, fsid: string, monPort: number, rgwPort: number): string {
  return `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
public addr = 127.0.0.1
auth cluster required = none
auth service required = none
auth client required = none
auth supported = none
ms mon client mode = crc
ms mon cluster mode = crc
ms mon service mode = crc
ms client mode = crc
ms cluster mode = crc
ms service mode = crc
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
log file = ${dir}/log/$name.log
log to stderr = false
err to stderr = true
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
paxos propose interval = 0.05
paxos min wait = 0.01
mon data = ${dir}/mon/$name
osd data = ${dir}/osd/$name
osd objectstore = memstore
memstore device bytes = 1073741824
osd max object name len = 256
osd max object namespace len = 64

[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort} tcp_nodelay=1
rgw data = ${dir}/rgw
rgw enable usage log = false
rgw dns name = 127.0.0.1
`;
}

/** Stops the daemons of a test that died without stopping them, and removes its directory. */
async function stopStaleClusters(): Promise<void> {
  const base = tmpdir();
  for (const name of await readdir(base).catch(() => [] as string[])) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = join(base, name);
    const ownerText = await readFile(join(dir, 'owner'), 'utf8').catch(() => null);
    // No owner yet: another test process may be creating it this moment; left alone unless it is old.
    if (ownerText === null && Date.now() - (await stat(dir).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs < 600_000)
      continue;
    const owner = Number((ownerText ?? '').trim());
    if (Number.isInteger(owner) && owner > 0 && alive(owner)) continue;
    for (const daemon of ['radosgw', 'ceph-osd', 'ceph-mon'])
      await stopStaleProcess(join(dir, `${daemon}.pid`), daemon, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}

/** Whether the process runs: it exists and is not a zombie (PID 1 here does not reap orphans). */
function alive(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitFor<T>(what: string, probe: () => Promise<T | null>, limitMs: number): Promise<T> {
  const until = Date.now() + limitMs;
  let last: unknown = null;
  while (Date.now() < until) {
    try {
      const v = await probe();
      if (v !== null) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`radosgw test cluster: ${what} did not happen within ${limitMs} ms${last ? ` (${last})` : ''}`);
}

export async function startRadosgw(): Promise<Radosgw> {
  const missing = radosgwMissing();
  if (missing) throw new Error(`radosgw test cluster: ${missing}`);
  await stopStaleClusters();
  const dir = await mkdtemp(join(tmpdir(), DIR_PREFIX));
  await writeFile(join(dir, 'owner'), String(process.pid));
  for (const sub of ['run', 'log', 'mon/mon.a', 'osd/osd.0', 'rgw']) await mkdir(join(dir, sub), { recursive: true });
  const [monPort, rgwPort] = [await freePort(), await freePort()];
  const fsid = randomUUID();
  const conf = join(dir, 'ceph.conf');
  await writeFile(conf, cephConf(dir, fsid, monPort, rgwPort));
  const children = new Map<string, ChildProcess>();
  const env = { ...process.env, TMPDIR: dir };

  const daemon = async (program: string, args: string[]) => {
    const child = spawn(program, ['-f', '-c', conf, ...args], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    child.once('exit', (code, signal) => {
      if (children.get(program) === child && code !== null && code !== 0)
        console.error(`radosgw test cluster: ${program} exited ${code ?? signal}: ${stderr}`);
    });
    children.set(program, child);
    await writeFile(join(dir, `${program}.pid`), String(child.pid));
  };
  const ceph = (...args: string[]) => run('ceph', ['-c', conf, ...args], { env, timeout: 60_000 });

  const stop = async () => {
    for (const program of ['radosgw', 'ceph-osd', 'ceph-mon'])
      await stopChild(children.get(program) ?? null, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await run(
      'monmaptool',
      ['--create', '--addv', 'a', `[v2:127.0.0.1:${monPort}]`, '--fsid', fsid, join(dir, 'monmap')],
      {
        env,
      },
    );
    await run('ceph-mon', ['-c', conf, '--mkfs', '-i', 'a', '--monmap', join(dir, 'monmap')], { env });
    await daemon('ceph-mon', ['-i', 'a']);
    const osdUuid = randomUUID();
    const osdId = await waitFor(
      'the monitor to answer',
      async () => (await ceph('osd', 'new', osdUuid)).stdout.trim(),
      30_000,
    );
    await run('ceph-osd', ['-c', conf, '-i', osdId, '--mkfs', '--osd-uuid', osdUuid], { env });
    await daemon('ceph-osd', ['-i', osdId]);
    // The pools in one `ceph` session (its commands on stdin): one process instead of fourteen.
    const commands = RGW_POOLS.flatMap((p) => [`osd pool create ${p} 8 8`, `osd pool application enable ${p} rgw`]);
    await new Promise<void>((resolve, reject) => {
      const child = spawn('ceph', ['-c', conf], { env, stdio: ['pipe', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
      });
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`creating the rgw pools: ${err}`))));
      child.stdin.end(`${commands.join('\n')}\n`);
    });
    await waitFor(
      'the OSD to come up',
      async () => ((JSON.parse((await ceph('osd', 'stat', '-f', 'json')).stdout).num_up_osds ?? 0) > 0 ? true : null),
      60_000,
    );
    const accessKeyId = `CL${randomBytes(8).toString('hex').toUpperCase()}`;
    const secretAccessKey = randomBytes(24).toString('base64url');
    await run(
      'radosgw-admin',
      [
        '-c',
        conf,
        'user',
        'create',
        '--uid=capture-ledger',
        '--display-name=capture-ledger',
        `--access-key=${accessKeyId}`,
        `--secret-key=${secretAccessKey}`,
      ],
      { env, timeout: 60_000 },
    );
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    const startGateway = async () => {
      await daemon('radosgw', ['-n', 'client.rgw']);
      await waitFor('radosgw to answer', async () => ((await fetch(endpoint)).ok ? true : null), 60_000);
    };
    await startGateway();
    return {
      endpoint,
      region: 'us-east-1',
      accessKeyId,
      secretAccessKey,
      dir,
      pids: () => [...children.values()].filter((c) => c.exitCode === null && c.signalCode === null).map((c) => c.pid!),
      stopGateway: () => stopChild(children.get('radosgw') ?? null, 'SIGKILL'),
      startGateway,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
