import { z } from 'zod';
import { isId } from '../../domain/ids.js';
import { parseTilePath, TILE_WIDTH } from '../../transparency/tiles.js';
import { encodeEntryBundle } from '../../transparency/tiles.js';
import type { TransparencyService } from '../../transparency/log-service.js';
import { LogViewBehindError } from '../../transparency/log-view.js';
import type { TypedApp } from '../app.js';
import { ANSWERS, HttpProblem, NATS_RETRY_AFTER_S, problemResponses } from '../problem.js';
import { binary, dateTime } from '../schemas.js';
import type { TenantGuard } from '../tenant-auth.js';
import { type RouteRegistrar, registerRoutes } from '../route-registrar.js';

/**
 * The public transparency log (docs/transparency.md): the latest signed checkpoint, the verifier key, C2SP
 * tlog-tiles under /v1/log/tile/, and inclusion and consistency proofs. No credential; per-address rate limit.
 */

const LOG_PREFIX = '/v1/log';
const publicAnswers = { ...ANSWERS.perIp, ...ANSWERS.internal } as const;
/** How long a proof waits for this process's view to hold the latest checkpoint's tree. */
const VIEW_WAIT_MS = 10_000;
const noLog = {
  503: "No transparency log sequencer has published a key or checkpoint yet, or this process's view of the log is catching up with the latest checkpoint (Retry-After).",
} as const;

const single = (what: string) => (iss: { input?: unknown }) =>
  Array.isArray(iss.input) ? 'may be given once' : `must be ${what}, got '${String(iss.input)}'`;
/** A non-negative integer query parameter; absent → undefined. */
const queryIndex = z.preprocess(
  (v) => (typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v === '' ? undefined : v),
  z
    .number({ error: single('a non-negative integer') })
    .int({ error: single('a non-negative integer') })
    .min(0, { error: single('a non-negative integer') })
    .max(Number.MAX_SAFE_INTEGER)
    .optional(),
);

const b64 = (h: Uint8Array) => Buffer.from(h).toString('base64');

const checkpointJsonSchema = z
  .object({
    origin: z.string(),
    treeSize: z.number().int(),
    rootHash: z.string().describe('Base64 of the 32-byte RFC 6962 root.'),
    note: z.string().describe('The checkpoint as a C2SP signed note (what GET /v1/log/checkpoint answers).'),
    timestamp: z
      .object({
        token: z.string().describe('Base64 DER RFC 3161 TimeStampToken over SHA-256 of the note.'),
        genTime: dateTime(),
        tsa: z.string(),
      })
      .nullable()
      .describe('Null when the deployment has no TSA or it was unavailable.'),
  })
  .describe('The latest checkpoint with its RFC 3161 timestamp.');

const inclusionSchema = z
  .object({
    leafIndex: z.number().int(),
    treeSize: z.number().int(),
    rootHash: z.string().describe('Base64 root of the tree of treeSize leaves.'),
    hashes: z.array(z.string()).describe('Base64 sibling hashes, leaf to root (RFC 9162 2.1.3).'),
    checkpoint: z.string().optional().describe('The signed checkpoint of treeSize, when treeSize was not given.'),
  })
  .describe('Inclusion proof.');

const consistencySchema = z
  .object({
    first: z.number().int(),
    second: z.number().int(),
    firstRootHash: z.string(),
    secondRootHash: z.string(),
    hashes: z.array(z.string()).describe('Base64 hashes (RFC 9162 2.1.4).'),
  })
  .describe('Consistency proof.');

export function transparencyLogRoutes(log: TransparencyService, guard: TenantGuard) {
  return async (app: TypedApp) => {
    app.addHook('onRequest', guard.perIp());
    registerRoutes(app, LOG_ROUTES, log);
  };
}

const LOG_ROUTES: RouteRegistrar<TransparencyService>[] = [
  checkpointRoute,
  checkpointJsonRoute,
  logKeyRoute,
  witnessesRoute,
  tileRoute,
  inclusionProofRoute,
  consistencyProofRoute,
];

async function requireCheckpoint(log: TransparencyService) {
  const cp = await log.checkpoint();
  if (!cp)
    throw new HttpProblem(503, 'The transparency log has not published a checkpoint yet.', 'Service Unavailable');
  return cp;
}

function requireAvailable(view: TransparencyService['view']) {
  if (view.problem())
    throw new HttpProblem(503, `The transparency log is unavailable: ${view.problem()}`, 'Service Unavailable');
}

/** Waits for this process's view to hold the checkpoint's tree: 503 with Retry-After while it catches up. */
async function waitForView(view: TransparencyService['view'], size: number): Promise<void> {
  try {
    await view.waitForSize(size, VIEW_WAIT_MS);
  } catch (err) {
    if (!(err instanceof LogViewBehindError)) throw err;
    throw new HttpProblem(
      503,
      `${err.message}; retry after ${NATS_RETRY_AFTER_S} seconds.`,
      'Service Unavailable',
      {},
      { 'Retry-After': String(NATS_RETRY_AFTER_S) },
    );
  }
}

function requireSize(view: TransparencyService['view'], name: string, size: number) {
  requireAvailable(view);
  if (size > view.size())
    throw new HttpProblem(400, `${name} ${size} is beyond the log's ${view.size()} leaves.`, 'Bad Request');
}

function checkpointRoute(app: TypedApp, log: TransparencyService) {
  app.get(
    `${LOG_PREFIX}/checkpoint`,
    {
      schema: {
        operationId: 'getLogCheckpoint',
        tags: ['transparency'],
        summary: 'The latest signed checkpoint (C2SP tlog-checkpoint)',
        security: [],
        response: {
          200: {
            description: 'The checkpoint as a C2SP signed note (text/plain).',
            content: { 'text/plain': { schema: z.string() } },
          },
          ...problemResponses({ ...publicAnswers, ...noLog }),
        },
      },
    },
    async (_req, reply) => {
      const cp = await requireCheckpoint(log);
      return reply.type('text/plain; charset=utf-8').header('Cache-Control', 'no-cache').send(cp.note);
    },
  );
}

function checkpointJsonRoute(app: TypedApp, log: TransparencyService) {
  app.get(
    `${LOG_PREFIX}/checkpoint.json`,
    {
      schema: {
        operationId: 'getLogCheckpointJson',
        tags: ['transparency'],
        summary: 'The latest checkpoint with its RFC 3161 timestamp',
        security: [],
        response: { 200: checkpointJsonSchema, ...problemResponses({ ...publicAnswers, ...noLog }) },
      },
    },
    async (_req, reply) => {
      const cp = await requireCheckpoint(log);
      const [origin, size, root] = cp.note.split('\n') as [string, string, string];
      reply.header('Cache-Control', 'no-cache');
      return { origin, treeSize: Number(size), rootHash: root, note: cp.note, timestamp: cp.timestamp };
    },
  );
}

function logKeyRoute(app: TypedApp, log: TransparencyService) {
  app.get(
    `${LOG_PREFIX}/key`,
    {
      schema: {
        operationId: 'getLogKey',
        tags: ['transparency'],
        summary: "The log's note verifier key",
        security: [],
        response: {
          200: {
            description: 'The Ed25519 verifier key, `<origin>+<hex key hash>+<base64 0x01‖key>` (text/plain).',
            content: { 'text/plain': { schema: z.string() } },
          },
          ...problemResponses({ ...publicAnswers, ...noLog }),
        },
      },
    },
    async (_req, reply) => {
      const key = await log.logKey();
      if (!key)
        throw new HttpProblem(
          503,
          'No transparency log key has been published: no sequencer has started.',
          'Service Unavailable',
        );
      return reply.type('text/plain; charset=utf-8').send(`${key}\n`);
    },
  );
}

function witnessesRoute(app: TypedApp, log: TransparencyService) {
  app.get(
    `${LOG_PREFIX}/witnesses`,
    {
      schema: {
        operationId: 'listLogWitnesses',
        tags: ['transparency'],
        summary: 'The witnesses this log asks to cosign its checkpoints',
        description:
          'LOG_WITNESSES and LOG_WITNESS_QUORUM as configured (docs/transparency.md, Witnesses). Informational: a relying party pins the witness keys it trusts, from the witnesses themselves.',
        security: [],
        response: {
          200: z
            .object({
              quorum: z
                .number()
                .int()
                .describe('How many must cosign for a verify result to call a checkpoint witnessed.'),
              witnesses: z.array(
                z.object({
                  name: z.string(),
                  key: z.string().describe('The witness vkey, `<name>+<hex key ID>+<base64 0x04‖key>`.'),
                  url: z.string().describe('Its C2SP tlog-witness submission prefix.'),
                }),
              ),
            })
            .describe('The configured witnesses (none: an empty list and quorum 0).'),
          ...problemResponses(publicAnswers),
        },
      },
    },
    async () => {
      const policy = log.witnessPolicy ?? { quorum: 0, witnesses: [] };
      return {
        quorum: policy.quorum,
        witnesses: policy.witnesses.map((w) => ({ name: w.name, key: w.vkey, url: w.url })),
      };
    },
  );
}

function tileRoute(app: TypedApp, { view }: TransparencyService) {
  app.get(
    `${LOG_PREFIX}/tile/*`,
    {
      schema: {
        operationId: 'getLogTile',
        tags: ['transparency'],
        summary: 'A tile or entries bundle (C2SP tlog-tiles)',
        security: [],
        params: z.object({
          '*': z
            .string()
            .describe(
              '<L>/<N>[.p/<W>] or entries/<N>[.p/<W>] (C2SP tlog-tiles), N in x-prefixed three-digit groups; its slashes may be sent as %2F.',
            ),
        }),
        response: {
          200: {
            description:
              'Tile bytes (32-byte hashes) or an entries bundle; full tiles are immutable and cached for a year.',
            content: { 'application/octet-stream': { schema: binary() } },
          },
          ...problemResponses({
            ...publicAnswers,
            400: 'Not a tile path.',
            404: 'The tree does not hold that tile (yet).',
            ...noLog,
          }),
        },
      },
    },
    async (req, reply) => {
      const path = req.params['*'];
      const ref = parseTilePath(path);
      if (!ref)
        throw new HttpProblem(400, `${path} is not a tile path: <L>/<N>[.p/<W>] or entries/<N>[.p/<W>]`, 'Bad Request');
      requireAvailable(view);
      const body = await tileBytes(view, ref);
      if (!body) throw new HttpProblem(404, `The log does not hold tile ${path} yet.`, 'Not Found');
      // A full tile never changes; a partial one is superseded by a wider one as the log grows.
      reply.header(
        'Cache-Control',
        ref.width === TILE_WIDTH ? 'public, max-age=31536000, immutable' : 'public, max-age=60',
      );
      return reply.type('application/octet-stream').send(Buffer.from(body));
    },
  );
}

/** The bytes of a tile or entries bundle; undefined while the tree does not hold it. */
async function tileBytes(view: TransparencyService['view'], ref: NonNullable<ReturnType<typeof parseTilePath>>) {
  const level = ref.level === 'entries' ? 0 : ref.level * 8;
  const from = ref.index * TILE_WIDTH;
  const to = from + ref.width;
  if (to > view.tree.widthAt(level)) return undefined;
  return ref.level === 'entries'
    ? encodeEntryBundle(await view.leafData(from, to))
    : view.tree.hashesAt(level, from, to);
}

function inclusionProofRoute(app: TypedApp, log: TransparencyService) {
  app.get(
    `${LOG_PREFIX}/proof/inclusion`,
    {
      schema: {
        operationId: 'getLogInclusionProof',
        tags: ['transparency'],
        summary: 'Inclusion proof of a leaf, by index or by capture ID',
        security: [],
        querystring: z.object({
          leafIndex: queryIndex.describe('The leaf; or give captureId.'),
          captureId: z
            .string({ error: single('a string') })
            .optional()
            .describe('A capture whose bundle is logged; or give leafIndex.'),
          treeSize: queryIndex.describe('Tree size of the proof; default: the latest checkpoint.'),
        }),
        response: {
          200: inclusionSchema,
          ...problemResponses({
            ...publicAnswers,
            400: 'leafIndex or captureId missing (or both given), or beyond treeSize; treeSize beyond the log.',
            404: 'The capture has no leaf in the log (yet).',
            ...noLog,
          }),
        },
      },
    },
    async (req) => inclusionProof(log, req.query),
  );
}

/** The inclusion proof of a leaf (by index or by capture) in a tree of the given size, or of the latest checkpoint. */
async function inclusionProof(
  log: TransparencyService,
  q: { leafIndex?: number | undefined; captureId?: string | undefined; treeSize?: number | undefined },
) {
  const { view } = log;
  if ((q.leafIndex === undefined) === (q.captureId === undefined))
    throw new HttpProblem(400, 'Give exactly one of leafIndex and captureId.', 'Bad Request');
  let index = q.leafIndex;
  if (q.captureId !== undefined) {
    index = isId('cap', q.captureId) ? view.leafIndexOfCapture(q.captureId) : undefined;
    if (index === undefined)
      throw new HttpProblem(404, `Capture ${q.captureId} has no leaf in the transparency log.`, 'Not Found');
  }
  let size = q.treeSize;
  let note: string | undefined;
  if (size === undefined) {
    const cp = await requireCheckpoint(log);
    size = cp.size;
    note = cp.note;
    await waitForView(view, size);
  }
  requireSize(view, 'treeSize', size);
  if (index! >= size) throw new HttpProblem(400, `leaf ${index} is not in a tree of ${size} leaves.`, 'Bad Request');
  return {
    leafIndex: index!,
    treeSize: size,
    rootHash: b64(view.tree.root(size)),
    hashes: view.tree.inclusionProof(index!, size).map(b64),
    ...(note ? { checkpoint: note } : {}),
  };
}

function consistencyProofRoute(app: TypedApp, log: TransparencyService) {
  app.get(
    `${LOG_PREFIX}/proof/consistency`,
    {
      schema: {
        operationId: 'getLogConsistencyProof',
        tags: ['transparency'],
        summary: 'Consistency proof between two tree sizes',
        security: [],
        querystring: z.object({
          first: queryIndex.describe('The older tree size.'),
          second: queryIndex.describe('The newer tree size; default: the latest checkpoint.'),
        }),
        response: {
          200: consistencySchema,
          ...problemResponses({
            ...publicAnswers,
            400: 'first missing, first above second, or second beyond the log.',
            ...noLog,
          }),
        },
      },
    },
    async (req) => consistencyProof(log, req.query.first, req.query.second),
  );
}

/** The consistency proof from tree size `first` to `second`, or to the latest checkpoint. */
async function consistencyProof(log: TransparencyService, first: number | undefined, second: number | undefined) {
  const { view } = log;
  if (first === undefined) throw new HttpProblem(400, 'first is required.', 'Bad Request');
  if (second === undefined) {
    second = (await requireCheckpoint(log)).size;
    await waitForView(view, second);
  }
  requireSize(view, 'second', second);
  if (first > second) throw new HttpProblem(400, `first (${first}) must not exceed second (${second}).`, 'Bad Request');
  return {
    first,
    second,
    firstRootHash: b64(view.tree.root(first)),
    secondRootHash: b64(view.tree.root(second)),
    hashes: view.tree.consistencyProof(first, second).map(b64),
  };
}
