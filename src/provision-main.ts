// `node dist/src/provision-main.js`: create or update the streams and buckets, then exit (docker-compose's
// `provision` service runs it as the operator user before the roles start; src/infra/nats-provision.ts).
import { connect } from '@nats-io/transport-node';
import { ConfigError, loadConfig } from './config/config.js';
import { provisionNats } from './infra/nats-provision.js';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`provision: ${err.message}`);
  process.exit(2);
}
if (!config.NATS_URL) {
  console.error('provision: NATS_URL is required (the embedded server of make run provisions itself)');
  process.exit(2);
}
const nc = await connect({
  servers: config.NATS_URL.split(',').map((s) => s.trim()),
  name: 'provision',
  ...(config.NATS_USER ? { user: config.NATS_USER, pass: config.NATS_PASSWORD ?? '' } : {}),
});
await provisionNats(nc, config.NATS_REPLICAS);
await nc.drain();
console.log(`provision: streams and buckets ready with ${config.NATS_REPLICAS} replica(s)`);
