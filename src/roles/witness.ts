import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { type RunningWitness, startWitness } from '../witness/run-witness.js';

/**
 * The witness role (ROLES=witness, alone in its process): a C2SP tlog-witness for the logs of WITNESS_LOG_KEYS,
 * with its own key (WITNESS_SIGNING_KEY or DATA_DIR/witness-key.seed) and state in DATA_DIR. It connects to no
 * NATS server and no database: what it checks, it checks against the published log keys alone.
 */
export function startWitnessRole(config: Config, log: Logger): Promise<RunningWitness> {
  return startWitness({
    name: config.WITNESS_NAME,
    logKeys: config.WITNESS_LOG_KEYS,
    seedBase64: config.WITNESS_SIGNING_KEY,
    dataDir: config.DATA_DIR,
    port: config.PORT,
    host: config.HOST,
    log,
  });
}
