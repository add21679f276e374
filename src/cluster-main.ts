import { resolve } from 'node:path';
import { startLocalCluster } from './infra/local-cluster.js';

/**
 * `make cluster`: the scaled deployment on this machine — three clustered nats-servers, Postgres, and
 * 2 api (PORT and PORT+1), 2 workers, 2 signers, projector, dispatcher, scheduler, 2 sequencers and 2 witnesses of
 * the transparency log as separate processes, each with
 * its own DATA_DIR under CLUSTER_DIR. Ctrl-C stops all of it. See docs/scaling.md.
 */
const dir = resolve(process.env['CLUSTER_DIR'] ?? './data/cluster');
const port = Number(process.env['PORT'] ?? 8080);
const pass = (name: string) => (process.env[name] ? { [name]: process.env[name]! } : {});
const cluster = await startLocalCluster({
  dir,
  apiPorts: [port, port + 1],
  replicas: Number(process.env['NATS_REPLICAS'] ?? 3),
  witnesses: 2,
  env: {
    ...pass('ADMIN_KEY'),
    ...pass('SIGNING_KEY'),
    ...pass('ALLOW_PRIVATE_TARGETS'),
    ...pass('CAPTURE_TIMEOUT_MS'),
    ...pass('WORKER_CONCURRENCY'),
    ...pass('TSA_URL'),
    ...pass('LOG_LEVEL'),
    PUBLIC_BASE_URL: process.env['PUBLIC_BASE_URL'] ?? `http://localhost:${port}`,
  },
  log: (line) => process.stdout.write(`${line}\n`),
});

process.stdout.write(
  [
    '',
    'Capture Ledger cluster is up:',
    `  NATS_URL=${cluster.nats.url}  (operator: NATS_USER=${cluster.operator.user} NATS_PASSWORD=${cluster.operator.pass})`,
    `  API: ${cluster.apiUrls.join('  ')}`,
    ...cluster.processes.filter((p) => p.role !== 'api').map((p) => `  ${p.name}: ${p.url}/health`),
    `  log key: ${cluster.logKey}`,
    ...cluster.witnessKeys.map((k) => `  witness key: ${k}`),
    `  ADMIN_KEY=${cluster.adminKey}`,
    'Ctrl-C stops every process.',
    '',
  ].join('\n'),
);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  process.stdout.write('stopping the cluster…\n');
  await cluster.stop();
  process.exit(0);
};
process.removeAllListeners('SIGINT');
process.removeAllListeners('SIGTERM');
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
