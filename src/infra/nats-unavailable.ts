import { JetStreamApiError } from '@nats-io/jetstream';
import { RequestError, TimeoutError } from '@nats-io/transport-node';

/** JetStream's 'temporarily unavailable' (a stream or the meta group without a leader); nats.js has no name for it. */
export const TEMPORARILY_UNAVAILABLE = 10008;

/**
 * No answer, or no leader to answer: a nats-server is restarting or an election is under way. The same request
 * can be tried again in a moment; the API answers 503 with Retry-After for it rather than 500.
 */
export function isNatsUnavailable(err: unknown): boolean {
  if (err instanceof TimeoutError) return true;
  if (err instanceof JetStreamApiError) return err.code === TEMPORARILY_UNAVAILABLE;
  // No responders reaches us as JetStreamNotEnabled, with the RequestError as its cause.
  const request = err instanceof RequestError ? err : (err as Error | null)?.cause;
  return request instanceof RequestError && (request.isNoResponders() || request.cause instanceof TimeoutError);
}

/** Retries `work` while NATS is unavailable, for at most `budgetMs`; any other error, or the last one, is thrown. */
export async function whileNatsUnavailable<T>(
  work: () => Promise<T>,
  opts: { budgetMs: number; pauseMs?: number },
): Promise<T> {
  const deadline = Date.now() + opts.budgetMs;
  for (;;) {
    try {
      return await work();
    } catch (err) {
      if (!isNatsUnavailable(err) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, opts.pauseMs ?? 1_000));
    }
  }
}
