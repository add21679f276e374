/**
 * Diffs run in worker threads under a time limit (DESIGN.md decision 20, docs/watch.md): a diff matches a tenant's
 * selectors and patterns against pages the tenant chose, and compares texts and screenshots of any size, so it runs
 * where a clock can end it — a thread that is terminated when the limit passes — and the event loop that serves
 * everyone else only waits for the answer. A terminated thread is never reused; a thread that finished is kept for
 * the next job and ended after a minute without one. Each thread's heap is bounded too: a diff that needs more
 * ends like one that runs too long.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { refusal } from '../domain/errors.js';
import type { CaptureDiff, CaptureSide } from './capture-diff.js';
import { DiffBoundError } from './diff-bounds.js';
import type { DiffOptions } from './diff-options.js';
import type { Box } from './pixel-diff.js';

export type DiffJob =
  | { kind: 'diff'; base: CaptureSide; next: CaptureSide; options: DiffOptions }
  | { kind: 'image'; before: Uint8Array; after: Uint8Array; ignoreBoxes: Box[] };

export type DiffReply =
  | { ok: CaptureDiff | Uint8Array }
  | { bound: DiffBoundError['bound']; detail: string }
  | { status: number; detail: string }
  | { error: string };

type Result<J extends DiffJob> = J extends { kind: 'diff' } ? CaptureDiff : Uint8Array;

// The worker file sits beside this one, with the same extension (.ts under tsx, .js when built); under tsx the
// thread registers tsx's loader before importing it (Node 20 does not hand it to worker threads).
const EXTENSION = extname(fileURLToPath(import.meta.url));
const WORKER_URL = new URL(`./diff.worker${EXTENSION}`, import.meta.url);

const IDLE_MS = 60_000;
/**
 * The thread's first act: lower its own scheduling priority (nice 10; Linux, where a thread id names one thread
 * to setpriority), so on a busy host the event loop's thread is given the CPU first and the diff the rest.
 * Elsewhere it stays as it is.
 */
const LOWER_PRIORITY = `try { require('node:os').setPriority(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()), 10); } catch {}`;
/** How long a new thread may take to load the diff's modules (not counted in the diff's time limit). */
const START_MS = 60_000;
/** A diff decodes two full-page screenshots (about 100 MB of pixels each, outside the heap): the heap stays small. */
const HEAP_MB = 1024;

export interface DiffThreads {
  run<J extends DiffJob>(job: J): Promise<Result<J>>;
  /** Ends the idle threads (a running diff ends with its limit). */
  close(): Promise<void>;
}

/** The threads kept for the next job, each with the timer that ends it when it stays idle. */
type IdleThreads = Map<Worker, NodeJS.Timeout>;

export function createDiffThreads(timeLimitMs: number): DiffThreads {
  const idle: IdleThreads = new Map();
  return {
    run: (job) => runJob(idle, timeLimitMs, job),
    close: () => closeIdle(idle),
  };
}

/** A new thread, once it has loaded the diff's modules. */
async function startThread(idle: IdleThreads): Promise<Worker> {
  const load =
    EXTENSION === '.ts'
      ? `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL.href)}); });`
      : `import(${JSON.stringify(WORKER_URL.href)});`;
  const worker = new Worker(`${LOWER_PRIORITY}\n${load}`, {
    eval: true,
    resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
  });
  const started = await nextEvent(worker, START_MS);
  if (started.kind === 'timeout') {
    void worker.terminate();
    throw new Error(`the diff thread did not start within ${START_MS / 1000} s`);
  }
  if (started.kind === 'error') throw started.error;
  if (started.kind === 'exit') throw new Error(`the diff thread exited with code ${started.code} as it started`);
  // A thread that ends while idle (it should not) is not handed a job.
  worker.once('exit', () => {
    clearTimeout(idle.get(worker));
    idle.delete(worker);
  });
  return worker;
}

type ThreadEvent =
  | { kind: 'message'; message: unknown }
  | { kind: 'error'; error: Error & { code?: string } }
  | { kind: 'exit'; code: number }
  | { kind: 'timeout' };

/** The thread's next message, error or exit, or the timeout after `ms`: whichever comes first, every listener removed. */
function nextEvent(worker: Worker, ms: number): Promise<ThreadEvent> {
  return new Promise<ThreadEvent>((resolve) => {
    const settle = (event: ThreadEvent) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      resolve(event);
    };
    const onMessage = (message: unknown) => settle({ kind: 'message', message });
    const onError = (error: Error & { code?: string }) => settle({ kind: 'error', error });
    const onExit = (code: number) => settle({ kind: 'exit', code });
    const timer = setTimeout(() => settle({ kind: 'timeout' }), ms);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}

/** Keeps a thread that finished for the next job, ending it after IDLE_MS without one. */
function release(idle: IdleThreads, worker: Worker) {
  worker.unref();
  const timer = setTimeout(() => {
    idle.delete(worker);
    void worker.terminate();
  }, IDLE_MS);
  timer.unref();
  idle.set(worker, timer);
}

/** An idle thread, or a new one. */
function take(idle: IdleThreads): Promise<Worker> {
  for (const [worker, timer] of idle) {
    clearTimeout(timer);
    idle.delete(worker);
    return Promise.resolve(worker);
  }
  return startThread(idle);
}

/** Runs a job on a thread; the thread is ended when the limit passes or its heap is exhausted. */
async function runJob<J extends DiffJob>(idle: IdleThreads, timeLimitMs: number, job: J): Promise<Result<J>> {
  const worker = await take(idle);
  worker.ref();
  const answered = nextEvent(worker, timeLimitMs);
  worker.postMessage(job);
  const event = await answered;
  switch (event.kind) {
    case 'message': {
      release(idle, worker);
      const reply = event.message as DiffReply;
      if ('ok' in reply) return reply.ok as Result<J>;
      if ('bound' in reply) throw new DiffBoundError(reply.bound, reply.detail);
      if ('status' in reply) throw refusal(reply.status, reply.detail);
      throw new Error(reply.error);
    }
    case 'timeout':
      void worker.terminate();
      throw new DiffBoundError(
        'timeLimit',
        `the diff did not finish within its time limit of ${timeLimitMs / 1000} s and was stopped`,
      );
    case 'error':
      void worker.terminate();
      throw event.error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? new DiffBoundError('memory', `the diff needed more than ${HEAP_MB} MiB of memory and was stopped`)
        : event.error;
    case 'exit':
      throw new Error(`the diff thread exited with code ${event.code}`);
  }
}

/** Ends the idle threads. */
async function closeIdle(idle: IdleThreads): Promise<void> {
  const workers = [...idle.keys()];
  for (const timer of idle.values()) clearTimeout(timer);
  idle.clear();
  await Promise.all(workers.map((w) => w.terminate()));
}
