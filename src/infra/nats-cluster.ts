import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { natsServerBinary } from './embedded-nats.js';
import { freePort } from './free-port.js';
import { stopStaleProcess } from './stale-process.js';
import { stopChild } from './stop-child.js';

/**
 * A JetStream cluster of nats-server processes on loopback (DESIGN decision 10), for `make cluster`, the
 * failure tests and the scaling bench: each node has its own store directory and config file with a
 * `cluster { routes }` block naming the others. Nodes can be SIGKILLed and started again on the same ports and
 * store, as a host that crashed and came back.
 */
export interface ClusterNode {
  name: string;
  port: number;
  clusterPort: number;
  url: string;
  dir: string;
  process: ChildProcess | null;
}

export interface NatsCluster {
  nodes: ClusterNode[];
  /** Every node's client URL, comma-separated: the NATS_URL a process of the deployment gets. */
  url: string;
  kill(name: string, signal?: NodeJS.Signals): Promise<void>;
  start(name: string): Promise<void>;
  /** The node that leads `stream`'s raft group now (its server name), or null while none does. */
  streamLeader(stream: string): Promise<string | null>;
  stop(): Promise<void>;
}

export interface NatsClusterOptions {
  dir: string;
  size?: number;
  name?: string;
  /** Extra config text for every node (e.g. an authorization block). */
  extraConfig?: string;
  /** The user the launcher itself connects as, when extraConfig requires one. */
  credentials?: { user: string; pass: string };
  log?: (node: string, line: string) => void;
}

function nodeConfig(node: ClusterNode, all: ClusterNode[], clusterName: string, extra: string): string {
  const routes = all.filter((n) => n !== node).map((n) => `    nats-route://127.0.0.1:${n.clusterPort}`);
  return [
    `server_name: ${node.name}`,
    `listen: 127.0.0.1:${node.port}`,
    `jetstream { store_dir: "${join(node.dir, 'jetstream')}" }`,
    `cluster {`,
    `  name: ${clusterName}`,
    `  listen: 127.0.0.1:${node.clusterPort}`,
    `  routes: [`,
    ...routes,
    `  ]`,
    `}`,
    extra,
    '',
  ].join('\n');
}

export async function startNatsCluster(opts: NatsClusterOptions): Promise<NatsCluster> {
  const nodes = await clusterNodes(opts);
  try {
    await Promise.all(nodes.map((n) => startNode(opts, n)));
    await waitForMetaLeader(opts, nodes);
  } catch (err) {
    // A node that failed to start or a cluster that never elected a leader: none of its servers is left running.
    await Promise.all(nodes.map((n) => killNode(n, 'SIGTERM'))).catch(() => undefined);
    throw err;
  }
  return {
    nodes,
    url: nodes.map((n) => n.url).join(','),
    kill: (name, signal) => killNode(nodeNamed(nodes, name), signal),
    start: (name) => startNode(opts, nodeNamed(nodes, name)),
    streamLeader: (stream) => streamLeader(opts, nodes, stream),
    async stop() {
      await Promise.all(nodes.map((n) => killNode(n, 'SIGTERM')));
    },
  };
}

/** The nodes on free ports, each with its store directory and config file written. */
async function clusterNodes(opts: NatsClusterOptions): Promise<ClusterNode[]> {
  const size = opts.size ?? 3;
  const clusterName = opts.name ?? 'capture-ledger';
  const nodes: ClusterNode[] = [];
  for (let i = 1; i <= size; i++) {
    const port = await freePort();
    const clusterPort = await freePort();
    const name = `nats-${i}`;
    nodes.push({ name, port, clusterPort, url: `nats://127.0.0.1:${port}`, dir: join(opts.dir, name), process: null });
  }
  for (const node of nodes) {
    await mkdir(node.dir, { recursive: true });
    await writeFile(join(node.dir, 'nats.conf'), nodeConfig(node, nodes, clusterName, opts.extraConfig ?? ''));
  }
  return nodes;
}

function nodeNamed(nodes: ClusterNode[], name: string): ClusterNode {
  const node = nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no cluster node named ${name}`);
  return node;
}

/** How long a node's start waits for its ports while another process listens on one, trying again each second. */
const PORT_TAKEN_WAIT_MS = 15_000;

/**
 * Start a node's nats-server and wait until it accepts clients. A node started again after a kill needs the ports it
 * had (every other node and every client knows them): when it exits because another process listens on one, it is
 * tried again for a while (a probe of another process holds a port a moment), then fails naming the port.
 */
async function startNode(opts: NatsClusterOptions, node: ClusterNode): Promise<void> {
  const deadline = Date.now() + PORT_TAKEN_WAIT_MS;
  for (;;) {
    try {
      return await startNodeOnce(opts, node);
    } catch (err) {
      const said = (err as Error).message;
      if (node.process?.exitCode === null || !/address already in use/i.test(said)) throw err;
      node.process = null;
      if (Date.now() > deadline) {
        const taken = [
          [node.port, 'client'],
          [node.clusterPort, 'cluster route'],
        ].filter(([port]) => said.includes(`127.0.0.1:${port}:`));
        const named = taken.map(([port, what]) => `its ${what} port ${port}`).join(' and ') || 'one of its ports';
        throw new Error(`${node.name} cannot start: another process listens on ${named} (${said})`);
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** Start a node's nats-server (stopping one a dead owner left on its pid file) and wait until it accepts clients. */
async function startNodeOnce(opts: NatsClusterOptions, node: ClusterNode): Promise<void> {
  const pidFile = join(node.dir, 'nats-server.pid');
  await stopStaleProcess(pidFile, 'nats-server');
  const child = spawn(natsServerBinary(), ['-c', join(node.dir, 'nats.conf'), '-P', pidFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The last lines it wrote, so that a node that exits at start says why.
  const recent: string[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line) continue;
      opts.log?.(node.name, line);
      recent.push(line);
      if (recent.length > 5) recent.shift();
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  node.process = child;
  await waitFor(
    async () => {
      if (child.exitCode !== null)
        throw new Error(`${node.name} exited with ${child.exitCode}; it said: ${recent.join(' | ') || 'nothing'}`);
      const nc = await connect({ servers: node.url, reconnect: false, timeout: 1000, ...opts.credentials }).catch(
        () => null,
      );
      if (!nc) return false;
      await nc.close();
      return true;
    },
    30_000,
    `${node.name} to accept connections`,
  );
}

async function killNode(node: ClusterNode, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  const child = node.process;
  node.process = null;
  await stopChild(child, signal);
}

/** The server that leads `stream`'s raft group, as the first running node that answers says; null while none does. */
async function streamLeader(opts: NatsClusterOptions, nodes: ClusterNode[], stream: string): Promise<string | null> {
  for (const node of nodes) {
    if (!node.process) continue;
    const nc = await connect({ servers: node.url, reconnect: false, timeout: 2000, ...opts.credentials }).catch(
      () => null,
    );
    if (!nc) continue;
    try {
      const jsm = await jetstreamManager(nc, { timeout: 3000 });
      const info = await jsm.streams.info(stream);
      return info.cluster?.leader ?? null;
    } catch {
      /* ask the next node */
    } finally {
      await nc.close().catch(() => undefined);
    }
  }
  return null;
}

/** JetStream needs a meta leader before streams can be created. */
async function waitForMetaLeader(opts: NatsClusterOptions, nodes: ClusterNode[]): Promise<void> {
  await waitFor(
    async () => {
      const nc = await connect({
        servers: nodes.map((n) => n.url),
        reconnect: false,
        timeout: 2000,
        ...opts.credentials,
      }).catch(() => null);
      if (!nc) return false;
      try {
        const jsm = await jetstreamManager(nc, { timeout: 3000 });
        await jsm.getAccountInfo();
        return true;
      } catch {
        return false;
      } finally {
        await nc.close().catch(() => undefined);
      }
    },
    60_000,
    'the JetStream meta leader',
  );
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
