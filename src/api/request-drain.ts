import type { IncomingMessage } from 'node:http';

/**
 * Reads and discards what is left of a request body before the service answers it.
 *
 * An answer sent while the client is still sending (an unknown route, a wrong method, a body over the limit)
 * is followed by a close; the kernel resets a socket closed with unread bytes, and the client then sees
 * `EPIPE`/`ECONNRESET` instead of the error body. Reading the rest first lets the answer arrive. A client
 * that sends more than `maxBytes`, or stops sending for `idleMs`, gets its answer anyway (and maybe a reset):
 * the bound keeps a drain from being a way to hold a connection or waste bandwidth.
 */
export const DRAIN_MAX_BYTES = 8 * 1024 * 1024;
export const DRAIN_IDLE_MS = 10_000;

export type DrainEnd = 'complete' | 'limit' | 'idle' | 'closed';

export function drainRequest(
  req: IncomingMessage,
  maxBytes = DRAIN_MAX_BYTES,
  idleMs = DRAIN_IDLE_MS,
): Promise<DrainEnd> {
  if (req.complete || req.readableEnded) return Promise.resolve('complete');
  if (req.destroyed) return Promise.resolve('closed');
  return new Promise((resolve) => {
    let seen = 0;
    let timer: NodeJS.Timeout;
    const finish = (why: DrainEnd) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      resolve(why);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish('idle'), idleMs);
    };
    const onData = (chunk: Buffer | string) => {
      seen += chunk.length;
      if (seen > maxBytes) finish('limit');
      else arm();
    };
    const onEnd = () => finish('complete');
    const onClose = () => finish(req.complete ? 'complete' : 'closed');
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onClose);
    arm();
    req.resume();
  });
}
