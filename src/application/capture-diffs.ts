import type { ArtifactStore } from '../capture/artifact-store.js';
import { readRecordedArtifact } from '../capture/recorded-artifact.js';
import { ARTIFACTS } from '../domain/artifacts.js';
import { refusal } from '../domain/errors.js';
import { isId } from '../domain/ids.js';
import { type CaptureDiff, type CaptureSide, diffCaptures } from '../watch/capture-diff.js';
import { decodePng, diffImage, encodePng } from '../watch/diff-image.js';
import { type DiffOptions, parseDiffOptions } from '../watch/diff-options.js';
import type { HeaderMap } from '../watch/header-diff.js';
import type { Caller } from './caller.js';
import { createConcurrencyLimit } from './concurrency-limit.js';
import type { ServiceContext } from './service-context.js';
import { type CaptureRow, findCapture } from '../../projections/read-models/captures.js';

/**
 * The diff of two captures of a tenant (docs/watch.md): GET /v1/captures/{id}/diff and /diff.png, and the
 * scheduler's watch (watch-runs.ts) call this. Both captures must be complete and the caller's; the refusals
 * name the query field at fault (spec 7.1).
 */

export type CaptureDiffs = ReturnType<typeof createCaptureDiffs>;

export interface DiffQuery {
  base?: unknown;
  ignoreSelectors?: unknown;
  ignoreText?: unknown;
}

/** Diffs decode two full-page screenshots each (about 100 MB for 20,000 px): a few at once, the rest queue. */
const DIFFS_AT_ONCE = 2;

export const diffPath = (captureId: string, baseId: string, image = false) =>
  `/v1/captures/${captureId}/diff${image ? '.png' : ''}?base=${baseId}`;

export function createCaptureDiffs(ctx: ServiceContext, artifacts: ArtifactStore) {
  const slot = createConcurrencyLimit(DIFFS_AT_ONCE);

  async function artifactOf(row: CaptureRow, name: keyof typeof ARTIFACTS): Promise<Uint8Array | null> {
    const ref = row.artifacts?.[ARTIFACTS[name].refKey];
    return ref ? readRecordedArtifact(artifacts, ref, { captureId: row.capture_id, artifact: name }) : null;
  }

  /** A complete capture of the tenant, or the 404 naming `field` (another tenant's reads as unknown). */
  async function completeCapture(tenantId: string, id: string, field: string): Promise<CaptureRow> {
    const row = isId('cap', id) ? await findCapture(ctx.pool, id) : null;
    const named = field === 'captureId' ? `Capture ${id}` : `${field}: capture ${id}`;
    if (!row || row.tenant_id !== tenantId) throw refusal(404, `${named} is unknown.`);
    if (row.status !== 'complete')
      throw refusal(404, `${named} is ${row.status}; only complete captures can be compared.`);
    return row;
  }

  async function sideOf(row: CaptureRow, parts: { text: boolean; wacz: boolean }): Promise<CaptureSide> {
    const html = parts.text ? await artifactOf(row, 'html') : null;
    const headers = parts.text ? await artifactOf(row, 'headers') : null;
    return {
      captureId: row.capture_id,
      url: row.url,
      finalUrl: row.final_url,
      completedAt: row.completed_at!.toISOString(),
      bundleHash: row.bundle?.bundleHash ?? null,
      html: html ? Buffer.from(html).toString('utf8') : null,
      headers: headers ? (JSON.parse(Buffer.from(headers).toString('utf8')) as HeaderMap) : null,
      screenshot: await artifactOf(row, 'screenshot'),
      wacz: parts.wacz ? await artifactOf(row, 'wacz') : null,
    };
  }

  /** The two rows and the options, or the 400/404 naming the field. */
  async function resolve(tenantId: string, captureId: string, query: DiffQuery) {
    if (typeof query.base !== 'string' || query.base === '')
      throw refusal(400, 'base: the query parameter base (the capture to compare with) is required.');
    if (query.base === captureId) throw refusal(400, `base: a capture cannot be compared with itself (${captureId}).`);
    const parsed = parseDiffOptions(query);
    if (!parsed.ok) throw refusal(400, parsed.detail);
    const row = await completeCapture(tenantId, captureId, 'captureId');
    const base = await completeCapture(tenantId, query.base, 'base');
    return { row, base, options: parsed.options };
  }

  /** The diff of two rows already checked (the watch calls this with a schedule's runs). */
  async function diffRows(base: CaptureRow, row: CaptureRow, options: DiffOptions): Promise<CaptureDiff> {
    return slot(async () =>
      diffCaptures(
        await sideOf(base, { text: true, wacz: true }),
        await sideOf(row, { text: true, wacz: true }),
        options,
      ),
    );
  }

  return {
    diffRows,
    completeCapture,

    /** The JSON diff with the URLs of itself and its image. */
    async diff(caller: Caller, captureId: string, query: DiffQuery) {
      const { row, base, options } = await resolve(caller.principal.tenantId, captureId, query);
      const diff = await diffRows(base, row, options);
      const origin = ctx.config.PUBLIC_BASE_URL;
      return {
        ...diff,
        links: {
          self: `${origin}${diffPath(captureId, base.capture_id)}`,
          image: diff.screenshot ? `${origin}${diffPath(captureId, base.capture_id, true)}` : null,
        },
      };
    },

    /** The diff image; 404 naming the capture without a screenshot. */
    async image(caller: Caller, captureId: string, query: DiffQuery): Promise<Uint8Array> {
      const { row, base } = await resolve(caller.principal.tenantId, captureId, query);
      return slot(async () => {
        const before = await artifactOf(base, 'screenshot');
        const after = await artifactOf(row, 'screenshot');
        if (!before) throw refusal(404, `base: capture ${base.capture_id} has no screenshot.`);
        if (!after) throw refusal(404, `Capture ${captureId} has no screenshot.`);
        return encodePng(diffImage(decodePng(before), decodePng(after)));
      });
    },
  };
}
