import { z } from 'zod';
import { KEY_HASH_PATTERN, TENANT_ID_PATTERN } from '../domain/tenant-keys.js';

export { TENANT_ID_PATTERN };

/** Field rules shared by several endpoints (spec 2.8, 2.9, 8.3). Messages name the rule so 400s are actionable. */

const required = (what: string) => ({
  error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : `must be ${what}`),
});

export const tenantIdSchema = z.string(required('a string')).regex(TENANT_ID_PATTERN, 'must match ^[a-z0-9_-]{1,64}$');

export const nameSchema = z
  .string(required('a string'))
  .regex(/^[\p{L}\p{N} _.:-]{1,128}$/u, 'must be 1-128 characters: letters, digits, spaces and _ . : -');

export const scopeSchema = z.enum(['capture', 'read', 'admin'], { error: "must be one of 'capture', 'read', 'admin'" });

export const keyHashSchema = z.string().regex(KEY_HASH_PATTERN, 'must be 64 lowercase hex characters');

/** The longest path segment routed (the router's maxParamLength); a longer one is answered 414 before any route runs. */
export const MAX_PATH_SEGMENT = 100;

/** What a refinement of a path parameter carries when the value names nothing: answered 404, not 400 (spec 7.2). */
const NAMES_NOTHING = { answer: 404 } as const;

/**
 * A path parameter whose value can name nothing unless it has `shape`: any other string is 404 (spec 7.2, an
 * unknown resource) before any store sees it — a store key is not any string (NATS refuses `\0`, spaces, dots in
 * places), and a refused key must not become a 500. `what` completes the 404's detail ("No capture has this id.").
 */
const namingParam = (shape: RegExp, what: string, description: string) =>
  z
    .string()
    .max(MAX_PATH_SEGMENT, `must be at most ${MAX_PATH_SEGMENT} characters`)
    .refine((v) => v.length > MAX_PATH_SEGMENT || shape.test(v), { error: `No ${what}.`, params: NAMES_NOTHING })
    .describe(description);

const ID_PREFIX = { capture: 'cap', schedule: 'sch', webhook: 'whk', profile: 'prf' } as const;

/**
 * A resource id in a path (cap_<id>, sch_<id>, whk_<id>): its prefix and then letters, digits, `_` and `-`, at most
 * MAX_PATH_SEGMENT characters. Longer is a 400 (no URL could carry it); any other shape names no resource (404). The
 * MCP tools take the same schema, so an argument no URL could carry is refused there too instead of being echoed back.
 */
export const idParam = (kind: keyof typeof ID_PREFIX, description: string) =>
  namingParam(new RegExp(`^${ID_PREFIX[kind]}_[A-Za-z0-9_-]+$`), `${kind} has this id`, description);

/** A keyHash in a path (spec 4.11: 64 hex characters); any other string names no key (404). */
export const keyHashParam = (description: string) => namingParam(KEY_HASH_PATTERN, 'key has this keyHash', description);

/** A tenant id in a path of a read; any string outside TENANT_ID_PATTERN names no tenant (404). */
export const tenantIdParam = (description: string) => namingParam(TENANT_ID_PATTERN, 'tenant has this id', description);

/**
 * The 404 detail when every issue of a failed validation is a path parameter naming nothing (namingParam), else
 * null: a request also wrong elsewhere is the 400 of those other issues.
 */
export function namesNothing(issues: ReadonlyArray<{ params?: unknown; message?: string }>): string | null {
  const answers = issues.map((i) => {
    const p = i.params as { answer?: unknown; params?: { answer?: unknown } } | undefined;
    return p?.answer ?? p?.params?.answer;
  });
  return issues.length > 0 && answers.every((a) => a === NAMES_NOTHING.answer) ? (issues[0]!.message ?? null) : null;
}

/**
 * Strings the OpenAPI document gives a format (spec: "date-time", "uri"). Formats are documented, not enforced
 * on the way out: a value the service already stores is answered as it is, never turned into a 500.
 */
export const dateTime = () => z.string().meta({ format: 'date-time' });
export const uri = () => z.string().meta({ format: 'uri' });

/** Binary and text downloads: documented by content type only, never passed through the JSON serializer. */
export const binary = () => z.custom<Uint8Array | string>().meta({ type: 'string', format: 'binary' });

/**
 * A target URL that the route checks itself (checkTargetUrl names what is wrong, 400 or 422 by spec 7.2), so
 * validation lets any value through to it; the document says what is accepted: a required absolute URI.
 */
// Validated as anything here (the URL policy checks it and names the rule); only its absence is refused here,
// with the words the routes have always used ("url: is required").
export const targetUrl = () =>
  z
    .unknown()
    .refine((v) => v !== undefined, { error: 'is required' })
    .meta({ type: 'string', format: 'uri', description: 'Absolute http(s) URL of a public page (spec 4.3).' });

/**
 * Documented as `doc` (an object schema), validated as anything: for batch items, which the route checks one
 * by one so a bad item is that item's 400 inside the 207, not the whole batch's (spec 4.4).
 */
export const documentedAs = (doc: z.ZodType) => {
  const { $schema: _dialect, ...json } = z.toJSONSchema(doc, { target: 'draft-2020-12', io: 'input' });
  return z.unknown().meta(json);
};

/** A list's `limit` query parameter: a whole number of at least 1 (400 otherwise), `def` when absent, clamped to `max`. */
export const pageLimit = (def: number, max: number, description: string) =>
  z
    .preprocess(
      (v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v),
      z
        .number({ error: 'must be an integer of at least 1' })
        .int()
        .min(1, 'must be an integer of at least 1')
        .default(def),
    )
    .transform((n) => Math.min(n, max))
    .describe(description);
