import { z } from 'zod';
import type { TypedApp } from '../api/app.js';
import type { OperatorGuard } from '../api/operator-auth.js';
import { ANSWERS, problemResponses } from '../api/problem.js';
import type { TenantGuard } from '../api/tenant-auth.js';
import type { ArchiveLag } from './archive-status.js';

/** `GET /v1/admin/archive`: how far the archive is behind the ledger (docs/operators.md, The archive). */
const archiveSchema = z
  .object({
    configured: z.boolean().describe('Whether this deployment archives (ARCHIVE_URL set); false: the rest is empty.'),
    lagEvents: z
      .number()
      .int()
      .nullable()
      .describe('Ledger, log and state messages not yet in a sealed segment; null without an archive.'),
    lagSeconds: z
      .number()
      .nullable()
      .describe('Age in seconds of the oldest of them; 0 when none, null without an archive.'),
    lastSegment: z.number().int().describe("The archive's last segment number; 0 when none was sealed yet."),
    lastArchivedAt: z.string().nullable().describe('When the last segment was sealed (RFC 3339); null when none.'),
  })
  .describe('Where the archive stands (docs/operators.md, The archive).');

export function archiveRoutes(deps: {
  guard: TenantGuard;
  operator: OperatorGuard;
  /** null: no ARCHIVE_URL, answered `configured: false`. */
  lag: (() => Promise<ArchiveLag>) | null;
}) {
  return async (app: TypedApp) => {
    app.addHook('onRequest', deps.guard.perIp());
    app.get(
      '/v1/admin/archive',
      {
        onRequest: deps.operator.credential(),
        schema: {
          tags: ['admin'],
          summary: "The archive's lag behind the ledger, and its last segment",
          operationId: 'getArchiveStatus',
          security: [{ bearer: [] }],
          response: {
            200: archiveSchema,
            ...problemResponses({ ...ANSWERS.operator, ...ANSWERS.internal }),
          },
        },
      },
      async () =>
        deps.lag
          ? { configured: true, ...(await deps.lag()) }
          : { configured: false, lagEvents: null, lagSeconds: null, lastSegment: 0, lastArchivedAt: null },
    );
  };
}
