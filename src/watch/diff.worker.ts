/**
 * Worker-thread side of runDiffJob (diff-thread.ts): runs each job it is sent — a diff of two captures, or the
 * diff image — and posts the result back; a bound reached or a refusal goes back as what it is, so the caller
 * answers it as if the work had run at home.
 */
import { parentPort } from 'node:worker_threads';
import { DomainError } from '../domain/errors.js';
import { diffCaptures } from './capture-diff.js';
import { DiffBoundError } from './diff-bounds.js';
import { decodePng, diffImage, encodePng } from './diff-image.js';
import type { DiffJob, DiffReply } from './diff-thread.js';

async function run(job: DiffJob): Promise<DiffReply> {
  try {
    if (job.kind === 'diff') return { ok: await diffCaptures(job.base, job.next, job.options) };
    // encodePng's bytes have an ArrayBuffer of their own: transferred, not copied.
    return { ok: encodePng(diffImage(decodePng(job.before), decodePng(job.after), { ignoreBoxes: job.ignoreBoxes })) };
  } catch (error) {
    if (error instanceof DiffBoundError) return { bound: error.bound, detail: error.message };
    if (error instanceof DomainError) return { status: error.status, detail: error.detail };
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

parentPort!.on('message', async (job: DiffJob) => {
  const reply = await run(job);
  const transfer = 'ok' in reply && reply.ok instanceof Uint8Array ? [reply.ok.buffer as ArrayBuffer] : [];
  parentPort!.postMessage(reply, transfer);
});
parentPort!.postMessage({ ready: true });
