import type { CaptureOptions } from '../domain/capture-options.js';

/** A capture job on the JOBS work queue (one per submitted capture; msgID `job:<captureId>`). */
export interface CaptureJob {
  tenantId: string;
  captureId: string;
  url: string;
  createdAt: string;
  correlationId: string;
  scheduleId?: string;
  /** Capture options as submitted (docs/capturing.md, Capture options); absent: the defaults. */
  options?: CaptureOptions;
  /** The corroborated set the capture is a member of: its members go to distinct workers. */
  corroborationId?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const encodeJob = (job: CaptureJob): Uint8Array => encoder.encode(JSON.stringify(job));
export const decodeJob = (data: Uint8Array): CaptureJob => JSON.parse(decoder.decode(data)) as CaptureJob;
