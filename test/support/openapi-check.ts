import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/**
 * Checks of the OpenAPI document against itself and against real answers: every operation
 * documents its responses, and a real answer has a status its operation documents and a body that
 * validates against the schema documented for that status and content type.
 */

// ajv-formats is CommonJS: its default export is the function.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export interface OpenApiDoc {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, unknown> };
}

export interface OperationObject {
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
  [key: string]: unknown;
}

export interface Operation {
  method: string;
  path: string;
  op: OperationObject;
}

export const PROBLEM_REF = '#/components/schemas/Problem';
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch']);

export function operations(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item))
      if (METHODS.has(method)) ops.push({ method: method.toUpperCase(), path, op });
  }
  return ops;
}

export const operationName = (o: Pick<Operation, 'method' | 'path'>): string => `${o.method} ${o.path}`;

/**
 * Error answers that are not the error body, on purpose: GET /health answers 503 with its health record, and
 * an unsatisfiable byte range is a bare 416 with Content-Range (RFC 9110), as download clients expect.
 */
export const OWN_ERROR_ANSWERS = [
  'GET /health 503',
  'GET /v1/captures/{captureId}/artifacts/{name} 416',
  'GET /v1/captures/{captureId}/pdf 416',
  'GET /v1/captures/{captureId}/session 416',
];

/**
 * What every operation must document: a `responses` object with at least one 2xx (or 3xx, for a redirect), a description for each
 * status, and the spec 7.1 error body (the shared Problem component, as JSON) for every 4xx and 5xx but the
 * OWN_ERROR_ANSWERS.
 */
export function structuralProblems(
  doc: OpenApiDoc,
  ownErrorAnswers: ReadonlyArray<string> = OWN_ERROR_ANSWERS,
): string[] {
  const problems: string[] = [];
  for (const o of operations(doc)) {
    const name = operationName(o);
    const responses = o.op.responses;
    if (!responses || Object.keys(responses).length === 0) {
      problems.push(`${name}: no responses documented`);
      continue;
    }
    // A browser navigation (console sign-in with OpenID Connect) succeeds with a redirect.
    if (!Object.keys(responses).some((s) => /^[23]\d\d$/.test(s)))
      problems.push(`${name}: no 2xx or 3xx response documented`);
    if ('default' in responses) problems.push(`${name}: a 'default' response hides which statuses it gives`);
    for (const [status, response] of Object.entries(responses)) {
      if (!response.description || response.description === 'Default Response')
        problems.push(`${name} ${status}: no description`);
      if (!/^[45]\d\d$/.test(status) || ownErrorAnswers.includes(`${name} ${status}`)) continue;
      const content = response.content ?? {};
      const types = Object.keys(content);
      const ref = (content['application/json']?.schema as { $ref?: string } | undefined)?.$ref;
      if (types.length !== 1 || ref !== PROBLEM_REF)
        problems.push(`${name} ${status}: not the error body (${JSON.stringify(content)})`);
    }
  }
  return problems;
}

/** The documented operation a concrete request path hits (path templates like /v1/captures/{captureId}). */
export function matchOperation(doc: OpenApiDoc, method: string, url: string): Operation | undefined {
  const path = url.split('?')[0]!;
  const candidates = operations(doc).filter((o) => o.method === method.toUpperCase());
  const exact = candidates.find((o) => o.path === path);
  if (exact) return exact;
  // A documented parameter is one segment (a client encodes the slashes of the tile `{path}`).
  return candidates.find((o) =>
    new RegExp(`^${o.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}/]+\}/g, '[^/]+')}$`).test(path),
  );
}

export interface Exchange {
  method: string;
  url: string;
  status: number;
  contentType: string | null;
  body: unknown;
  raw: Buffer;
}

/**
 * OpenAPI 3.0 `nullable: true` admits null, also beside an `enum` (the reading of 3.0.0–3.0.2, and what the
 * zod generator means by it); JSON Schema validators need null in the enum to agree.
 */
function nullableEnums(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullableEnums);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = nullableEnums(v);
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}

/** Validates answers against the schemas of one document (components resolved through the document). */
export function answerChecker(doc: OpenApiDoc) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  const compiled = new Map<unknown, ValidateFunction>();
  const validator = (schema: object): ValidateFunction => {
    let v = compiled.get(schema);
    if (!v) {
      // `#/components/...` references resolve against this root.
      v = ajv.compile(nullableEnums({ ...schema, components: doc.components ?? {} }) as object);
      compiled.set(schema, v);
    }
    return v;
  };

  /** What is wrong with this answer according to the document; empty when nothing is. */
  return function check(ex: Exchange): string[] {
    const where = `${ex.method} ${ex.url} → ${ex.status}`;
    const o = matchOperation(doc, ex.method, ex.url);
    if (!o) return [`${where}: no documented operation`];
    const response = o.op.responses?.[String(ex.status)];
    if (!response)
      return [
        `${where}: status not documented for ${operationName(o)} (documents ${Object.keys(o.op.responses ?? {}).join(', ')})`,
      ];
    const content = response.content;
    if (!content) {
      return ex.raw.length === 0 ? [] : [`${where}: documented without a body, answered ${ex.raw.length} bytes`];
    }
    const mediaType = (ex.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const documented = content[mediaType];
    if (!documented)
      return [`${where}: content type '${mediaType}' not documented (documents ${Object.keys(content).join(', ')})`];
    if (!/json/.test(mediaType)) return [];
    const schema = documented.schema as { format?: string } | undefined;
    if (!schema) return [`${where}: no schema for ${mediaType}`];
    // A download that happens to be JSON (the headers artifact) is documented as bytes.
    if (schema.format === 'binary') return [];
    const validate = validator(schema);
    if (validate(ex.body)) return [];
    return [
      `${where}: body does not match the documented schema: ${ajv.errorsText(validate.errors)}; body ${JSON.stringify(ex.body).slice(0, 500)}`,
    ];
  };
}
