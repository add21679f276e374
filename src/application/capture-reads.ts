import type { ApiContext } from '../api/context.js';
import { HttpProblem } from '../api/problem.js';
import { isId } from '../domain/ids.js';
import type { TransparencyService } from '../transparency/log-service.js';
import type { Caller } from './caller.js';
import { type CaptureRow, captureViews } from '../../projections/read-models/capture-view.js';
import { type CaptureListFilter, findCapture, listCaptures } from '../../projections/read-models/captures.js';

/**
 * Reads of captures (spec 4.2, 4.6, 4.7): the list of a tenant, a capture's status and its record, with the
 * refusals their routes answer. REST routes and MCP tools call these (DESIGN decision 15).
 */

export type CaptureReads = ReturnType<typeof createCaptureReads>;

/** `transparency`: the public log, when this process follows it: a record names its bundle's leaf (docs/transparency.md). */
export function createCaptureReads(ctx: ApiContext, transparency?: TransparencyService) {
  const views = captureViews(ctx.config.PUBLIC_BASE_URL);

  async function load(id: string): Promise<CaptureRow | null> {
    if (!isId('cap', id)) return null;
    return findCapture(ctx.pool, id);
  }

  const unknownCapture = (id: string) => new HttpProblem(404, `No capture ${id}.`, 'Not Found');

  async function loadKnown(id: string): Promise<CaptureRow> {
    const row = await load(id);
    if (!row) throw unknownCapture(id);
    return row;
  }

  return {
    /** The stored row, or null for an unknown or malformed id. */
    load,
    unknownCapture,

    /** spec 2.2; 404 for an unknown capture. */
    async status(id: string) {
      return views.status(await loadKnown(id));
    },

    /** spec 2.3; 404 unless the capture is complete (spec 3.1). */
    async record(id: string) {
      const row = await loadKnown(id);
      if (row.status !== 'complete') {
        throw new HttpProblem(404, `Capture ${id} is ${row.status}; the record exists only once it is complete (poll its status).`, 'Not Found');
      }
      const leafIndex = transparency?.view.leafIndexOfCapture(id);
      if (leafIndex === undefined) return views.record(row);
      const cp = await transparency!.checkpoint();
      return { ...views.record(row), transparency: { leafIndex, checkpoint: cp && cp.size > leafIndex ? cp.note : null } };
    },

    /** spec 4.2: one page of the tenant's captures; 500 when the database read fails (spec 7.2). */
    async list(caller: Caller, q: CaptureListFilter) {
      const { rows, total } = await listCaptures(ctx.pool, caller.principal.tenantId, q).catch((err) => {
        caller.log.error({ err }, 'listing captures failed');
        throw new HttpProblem(500, 'Database read failed while listing captures; retry shortly.', 'Internal Server Error');
      });
      return {
        data: rows.map((r) => views.summary(r)),
        pagination: { total, offset: q.offset, hasMore: q.offset + rows.length < total, limit: q.limit },
      };
    },
  };
}
