import { z } from 'zod';
import type { ArtifactRefs, BundleRef } from '../domain/events.js';
import { dateTime, iso, uri } from './schemas.js';

/** A row of the `captures` projection. */
export interface CaptureRow {
  capture_id: string;
  tenant_id: string;
  url: string;
  status: 'pending' | 'complete' | 'failed';
  created_at: Date;
  completed_at: Date | null;
  failed_at: Date | null;
  render_quality: 'full' | 'partial' | null;
  /** As the worker recorded it (spec 2.3 `render`). */
  render: CaptureRender | null;
  artifacts: ArtifactRefs | null;
  bundle: BundleRef | null;
  capture_settings: CaptureSettings | null;
  error: string | null;
  retryable: boolean | null;
  schedule_id: string | null;
  stored_bytes: number | null;
}

/** The JSON shapes of spec 2.1–2.5, built from projection rows. */
export function captureViews(baseUrl: string) {
  const captureUrl = (id: string) => `${baseUrl}/v1/captures/${id}`;
  const artifactUrl = (id: string, name: string) => `${captureUrl(id)}/artifacts/${name}`;

  return {
    statusUrl: (id: string) => `${captureUrl(id)}/status`,
    verifyUrl: (id: string) => `${baseUrl}/v1/verify/${id}`,

    /** spec 2.1 */
    summary(r: CaptureRow) {
      return {
        id: r.capture_id,
        status: r.status,
        url: r.url,
        createdAt: iso(r.created_at)!,
        ...(r.status === 'complete' ? { completedAt: iso(r.completed_at)!, renderQuality: r.render_quality ?? 'full' } : {}),
        ...(r.status === 'failed' ? { failedAt: iso(r.failed_at)!, error: r.error ?? 'capture failed', retryable: r.retryable ?? true } : {}),
      };
    },

    /** spec 2.2 */
    status(r: CaptureRow) {
      return {
        id: r.capture_id,
        status: r.status,
        ...(r.status === 'complete' ? { captureUrl: captureUrl(r.capture_id) } : {}),
        ...(r.status === 'failed' ? { error: r.error ?? 'capture failed', retryable: r.retryable ?? true } : {}),
      };
    },

    /** spec 2.4 */
    artifacts(r: CaptureRow) {
      const a = r.artifacts ?? ({} as Partial<ArtifactRefs>);
      return {
        screenshot: artifactUrl(r.capture_id, 'screenshot'),
        ...(a.screenshotBefore ? { screenshotBefore: artifactUrl(r.capture_id, 'screenshot-before') } : {}),
        html: artifactUrl(r.capture_id, 'html'),
        ...(a.headers ? { headers: artifactUrl(r.capture_id, 'headers') } : {}),
        ...(a.pdf ? { pdf: artifactUrl(r.capture_id, 'pdf') } : {}),
      };
    },

    /** spec 2.3 (complete captures only) */
    record(r: CaptureRow) {
      const hasBundle = Boolean(r.bundle && r.artifacts?.wacz);
      return {
        id: r.capture_id,
        status: 'complete' as const,
        url: r.url,
        createdAt: iso(r.created_at)!,
        completedAt: iso(r.completed_at)!,
        renderQuality: r.render_quality ?? 'full',
        ...(r.render ? { render: r.render } : {}),
        artifacts: this.artifacts(r),
        ...(hasBundle
          ? {
              wacz: { url: artifactUrl(r.capture_id, 'wacz'), bundleHash: r.bundle!.bundleHash, size: r.bundle!.size },
              verifyUrl: `${baseUrl}/v1/verify/${r.capture_id}`,
            }
          : {}),
        ...(r.capture_settings ? { captureSettings: r.capture_settings } : {}),
      };
    },
  };
}

// ---- the same shapes as response schemas (OpenAPI and serialization) ----------------------------------

const captureStatus = z.enum(['pending', 'complete', 'failed']);
const renderQuality = z.enum(['full', 'partial']);

/** spec 2.1 */
export const captureSummarySchema = z.object({
  id: z.string().describe('Capture identifier (cap_…); also the access secret.'),
  status: captureStatus,
  url: uri(),
  createdAt: dateTime(),
  completedAt: dateTime().optional().describe("Present when status is 'complete'."),
  renderQuality: renderQuality.optional().describe("Present when status is 'complete'."),
  failedAt: dateTime().optional().describe("Present when status is 'failed'."),
  error: z.string().optional().describe("Present when status is 'failed'; human-readable reason."),
  retryable: z.boolean().optional().describe("Present when status is 'failed'; true if a new capture may succeed."),
});

/** spec 2.2 */
export const captureStatusSchema = z
  .object({
    id: z.string(),
    status: captureStatus,
    captureUrl: uri().optional().describe("Present when 'complete'; URL of the full capture record."),
    error: z.string().optional().describe("Present when 'failed'."),
    retryable: z.boolean().optional().describe("Present when 'failed'."),
  })
  .describe('Capture status record (spec 2.2).');

/** `captureSettings` (spec 2.3): `version` and `consent` named by the spec; the rest (issue 15) kept as recorded. */
export const captureSettingsSchema = z
  .looseObject({
    version: z.number().int().describe('Schema version.'),
    consent: z.looseObject({}).optional().describe('Present when consent opt-out was attempted.'),
  })
  .describe('Settings recorded for the capture (consent handling, viewport, options).');

/** `render` (spec 2.3); further members the worker records (mainDocumentStatus) are kept. */
const renderSchema = z
  .looseObject({
    waitUntilReached: z.enum(['domcontentloaded', 'load', 'networkidle']),
    timedOut: z.boolean(),
    durationMs: z.number().int(),
    settleMs: z.number().int().optional(),
    settleReason: z.enum(['idle', 'cap']).optional(),
    stages: z.looseObject({}).optional().describe('Per-stage timing breakdown.'),
  })
  .describe('Rendering metadata, present on newer captures.');
export type CaptureRender = z.output<typeof renderSchema>;
export type CaptureSettings = z.output<typeof captureSettingsSchema>;

/** spec 2.3 */
export const captureRecordSchema = z
  .object({
    id: z.string(),
    status: z.literal('complete'),
    url: uri(),
    createdAt: dateTime(),
    completedAt: dateTime(),
    renderQuality: renderQuality,
    render: renderSchema.optional(),
    artifacts: z.object({
      screenshot: uri(),
      screenshotBefore: uri().optional().describe('Present only when consent was detected and dismissed.'),
      html: uri(),
      headers: uri().optional(),
      pdf: uri().optional().describe('Present when the capture asked for `pdf` (issue 15).'),
    }),
    wacz: z
      .object({ url: uri(), bundleHash: z.string().describe('sha256:<hex>'), size: z.number().int() })
      .optional()
      .describe('The signed bundle; present when a signing key was configured and the capture is not partial.'),
    verifyUrl: uri().optional().describe('Present only when `wacz` is present.'),
    captureSettings: captureSettingsSchema.optional(),
  })
  .describe('Capture record (spec 2.3).');
