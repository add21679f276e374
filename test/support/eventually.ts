/** Waiting for a condition in tests: generous limits on a busy machine, never a timed assertion. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it gives a truthy value, which it returns; throws naming `what` after `ms`. */
export async function eventually<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  ms = 60_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
