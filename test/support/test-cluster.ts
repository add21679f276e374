import { join } from 'node:path';
import {
  type LocalCluster,
  type LocalClusterOptions,
  POSTGRES_DATA_DIR,
  startLocalCluster,
} from '../../src/infra/local-cluster.js';
import { copyPgTemplate } from './pg-template.js';
import { serviceArgs } from './service-entry.js';

/**
 * The scaled deployment of src/infra/local-cluster.ts for a test: its Postgres starts from a copy of the run's
 * initialised template (test/support/pg-template.ts) instead of running initdb, and its role processes start from
 * the run's bundle when there is one (test/support/service-entry.ts); everything else is as startLocalCluster makes
 * it.
 */
export async function startTestCluster(opts: LocalClusterOptions): Promise<LocalCluster> {
  await copyPgTemplate(join(opts.dir, POSTGRES_DATA_DIR));
  return startLocalCluster({ mainArgs: serviceArgs(), ...opts });
}
