/**
 * At most `concurrency` pieces of work at once; the rest wait their turn in arrival order. What the public
 * verifications use (GET /v1/verify/{id}, POST /v1/verify/certificate), so a burst of them from anyone queues
 * instead of running all at once beside every other request.
 */
export type ConcurrencyLimit = <T>(work: () => Promise<T>) => Promise<T>;

export function createConcurrencyLimit(concurrency: number): ConcurrencyLimit {
  const waiting: Array<() => void> = [];
  let active = 0;
  return async (work) => {
    if (active >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await work();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
