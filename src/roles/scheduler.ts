import { createScheduler } from '../schedules/scheduler.js';
import type { DatabaseRuntime } from './database-runtime.js';
import type { ProcessRuntime } from './process-runtime.js';

/** The scheduler role. Any number may run: the tenant actor's OCC append makes each fire time fire once. */
export async function startSchedulerRole(runtime: ProcessRuntime, data: DatabaseRuntime): Promise<() => Promise<void>> {
  const { pool, tenants } = data.ctx;
  const scheduler = createScheduler({
    pool,
    tenants,
    clock: runtime.clock,
    tickMs: runtime.config.SCHEDULER_TICK_MS,
    log: runtime.log.child({ role: 'scheduler' }),
  });
  scheduler.start();
  return () => scheduler.stop();
}
