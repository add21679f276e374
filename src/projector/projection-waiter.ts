import type pg from 'pg';
import type { Projector } from './projector.js';
import { readCheckpoint } from './checkpoint.js';

/**
 * Read-your-writes for the API (DESIGN decision 4): after appending event `seq`, wait until the projection
 * has committed it, so the 202/201 we return is immediately visible to status and list reads.
 */
export interface ProjectionWaiter {
  waitFor(seq: number, timeoutMs?: number): Promise<boolean>;
}

export function createProjectionWaiter(pool: pg.Pool, local?: Projector): ProjectionWaiter {
  let known = 0;
  local?.events.on('checkpoint', (s: number) => (known = Math.max(known, s)));
  return {
    async waitFor(seq, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (known < seq) {
        if (local) {
          const reached = await new Promise<boolean>((resolve) => {
            const onCheckpoint = (s: number) => {
              if (s >= seq) done(true);
            };
            const timer = setTimeout(() => done(false), Math.min(100, Math.max(1, deadline - Date.now())));
            const done = (v: boolean) => {
              clearTimeout(timer);
              local.events.off('checkpoint', onCheckpoint);
              resolve(v);
            };
            local.events.on('checkpoint', onCheckpoint);
          });
          if (reached) return true;
          known = Math.max(known, local.checkpoint());
        } else {
          known = Math.max(known, await readCheckpoint(pool));
          if (known >= seq) return true;
          await new Promise((r) => setTimeout(r, 20));
        }
        if (Date.now() >= deadline) return known >= seq;
      }
      return true;
    },
  };
}
