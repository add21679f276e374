import type { ArtifactRefs } from '../../src/domain/events.js';
import type { CaptureRow } from './captures.js';
import { instant } from './read-model.js';

/**
 * The capture JSON of the API (spec 2.1–2.5), also inside webhook events (spec 6.2): built from rows of the
 * captures read model, so every reader shows a capture the same way.
 */
export type { CaptureRow } from './captures.js';

const iso = (d: Date | string | null | undefined): string | undefined => instant(d) ?? undefined;

/** What the record of a complete capture (spec 2.3) is built from: a row, or a capture.completed event. */
export type CompleteCaptureFields = Pick<
  CaptureRow,
  'capture_id' | 'url' | 'created_at' | 'completed_at' | 'render_quality' | 'artifacts' | 'bundle'
> &
  Partial<Pick<CaptureRow, 'final_url' | 'render' | 'capture_settings'>>;

/** What the status of a capture (spec 2.2) is built from: the row's few status columns. */
export type CaptureStatusFields = Pick<CaptureRow, 'capture_id' | 'status' | 'error' | 'retryable' | 'failure_reason'>;

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
        ...(r.status === 'complete'
          ? { completedAt: iso(r.completed_at)!, renderQuality: r.render_quality ?? 'full' }
          : {}),
        ...(r.status === 'failed'
          ? {
              failedAt: iso(r.failed_at)!,
              error: r.error ?? 'capture failed',
              retryable: r.retryable ?? true,
              ...failureReasonOf(r),
            }
          : {}),
      };
    },

    /** spec 2.2 */
    status(r: CaptureStatusFields) {
      return {
        id: r.capture_id,
        status: r.status,
        ...(r.status === 'complete' ? { captureUrl: captureUrl(r.capture_id) } : {}),
        ...(r.status === 'failed'
          ? { error: r.error ?? 'capture failed', retryable: r.retryable ?? true, ...failureReasonOf(r) }
          : {}),
      };
    },

    /** spec 2.4 */
    artifacts(r: Pick<CaptureRow, 'capture_id' | 'artifacts'>) {
      const a = r.artifacts ?? ({} as Partial<ArtifactRefs>);
      return {
        screenshot: artifactUrl(r.capture_id, 'screenshot'),
        ...(a.screenshotBefore ? { screenshotBefore: artifactUrl(r.capture_id, 'screenshot-before') } : {}),
        html: artifactUrl(r.capture_id, 'html'),
        ...(a.headers ? { headers: artifactUrl(r.capture_id, 'headers') } : {}),
        // An extension beside spec 4.8's artifact names: served at its own path, not under /artifacts/.
        ...(a.pdf ? { pdf: `${captureUrl(r.capture_id)}/pdf` } : {}),
        ...(a.session ? { session: `${captureUrl(r.capture_id)}/session` } : {}),
      };
    },

    /** spec 2.3 (complete captures only) */
    record(r: CompleteCaptureFields) {
      const hasBundle = Boolean(r.bundle && r.artifacts?.wacz);
      return {
        id: r.capture_id,
        status: 'complete' as const,
        url: r.url,
        createdAt: iso(r.created_at)!,
        completedAt: iso(r.completed_at)!,
        renderQuality: r.render_quality ?? 'full',
        ...(r.final_url ? { finalUrl: r.final_url } : {}),
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

/** docs/api.md, Failure reasons: present on failures recorded since reasons were. */
const failureReasonOf = (r: Pick<CaptureRow, 'failure_reason'>) =>
  r.failure_reason ? { failureReason: r.failure_reason } : {};
