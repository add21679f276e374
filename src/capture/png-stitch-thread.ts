/**
 * Stitches screenshot slices in a worker thread. Joining the slices of a 20,000 px page inflates about
 * 100 MB of scanlines: on the main thread that keeps the event loop busy long enough to stall every other
 * capture's browser protocol traffic and the worker's NATS heartbeats (docs/performance.md). One thread,
 * started at the first tall page and kept while tall pages keep coming (its start-up is not paid per page),
 * ended after a minute without one.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StitchReply, StitchRequest } from './png-stitch.worker.js';

// The worker file sits beside this one, with the same extension (.ts under tsx, .js when built). Node 20
// does not hand tsx's loader to worker threads, so under tsx the thread registers it before importing.
const EXTENSION = extname(fileURLToPath(import.meta.url));
const WORKER_URL = new URL(`./png-stitch.worker${EXTENSION}`, import.meta.url);

const IDLE_MS = 60_000;

let thread: Worker | undefined;
let idleTimer: NodeJS.Timeout | undefined;
let nextId = 1;
const waiting = new Map<number, { resolve: (png: Buffer) => void; reject: (error: Error) => void }>();

function stitchThread(): Worker {
  if (thread) return thread;
  const worker =
    EXTENSION === '.ts'
      ? new Worker(
          `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL.href)}); });`,
          { eval: true },
        )
      : new Worker(WORKER_URL);
  worker.on('message', (reply: StitchReply) => {
    const waiter = waiting.get(reply.id);
    if (!waiter) return;
    waiting.delete(reply.id);
    if (waiting.size === 0) {
      // An idle thread must not keep a finished process alive, nor linger for ever.
      idleTimer = setTimeout(() => void worker.terminate(), IDLE_MS);
      idleTimer.unref();
      worker.unref();
    }
    if ('error' in reply) waiter.reject(new Error(reply.error));
    else waiter.resolve(Buffer.from(reply.png.buffer, reply.png.byteOffset, reply.png.byteLength));
  });
  const fail = (error: Error) => {
    if (thread === worker) thread = undefined;
    clearTimeout(idleTimer);
    for (const waiter of waiting.values()) waiter.reject(error);
    waiting.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the PNG stitching thread exited with code ${code}`)));
  thread = worker;
  return worker;
}

export function stitchOffThread(slices: Buffer[]): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    clearTimeout(idleTimer);
    const worker = stitchThread();
    worker.ref();
    worker.postMessage({ id, slices } satisfies StitchRequest);
  });
}
