import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TypedApp } from '../../../src/api/app.js';
import { openApiApp } from '../../support/openapi-document.js';
import {
  type OpenApiDoc,
  operationName,
  operations,
  PROBLEM_REF,
  structuralProblems,
} from '../../support/openapi-check.js';

/**
 * The OpenAPI document of the API's plugins, built without NATS or Postgres (nothing is called): every
 * operation documents its responses — a 2xx, and the one error body for every 4xx.
 */

describe('OpenAPI document of the API plugins', () => {
  let app: TypedApp;
  let doc: OpenApiDoc;

  before(async () => {
    ({ app, doc } = await openApiApp());
  });
  after(() => app?.close());

  it('documents every operation with a 2xx and the error body for each 4xx and 5xx', () => {
    assert.ok(operations(doc).length >= 25, `only ${operations(doc).length} operations documented`);
    assert.deepEqual(structuralProblems(doc), []);
  });

  it('has one error body component, the spec 7.1 shape, open to limitType and quota', () => {
    const problem = doc.components?.schemas?.Problem as {
      required: string[];
      properties: Record<string, unknown>;
      additionalProperties: unknown;
    };
    assert.deepEqual(problem.required, ['type', 'status', 'title', 'detail']);
    assert.ok(problem.properties.limitType && problem.properties.quota);
    assert.notEqual(problem.additionalProperties, false);
    const refs = JSON.stringify(doc.paths).split(PROBLEM_REF).length - 1;
    assert.ok(refs > 100, `the error body is referenced ${refs} times`);
  });

  it('names the statuses the spec names for each endpoint', () => {
    // spec 4.2–4.14 and 7.2: the statuses each endpoint is said to answer with.
    const named: Record<string, number[]> = {
      'GET /health': [200],
      'GET /v1/captures': [200, 400, 401, 429, 500, 503],
      'POST /v1/captures': [202, 400, 401, 415, 422, 429, 503],
      'OPTIONS /v1/captures': [204, 403],
      'POST /v1/captures/batch': [207, 400, 401, 415, 429, 503],
      'GET /v1/captures/{captureId}/status': [200, 404],
      'GET /v1/captures/{captureId}': [200, 404],
      'GET /v1/captures/{captureId}/artifacts/{name}': [200, 404],
      'GET /v1/verify/{captureId}': [200, 404, 422, 429, 503],
      'GET /.well-known/signing-key': [200, 429, 503],
      'GET /.well-known/signing-keys': [200, 429, 503],
      'POST /v1/admin/keys': [201, 400, 401, 415, 429, 503],
      'GET /v1/admin/keys': [200, 401, 429, 503],
      'DELETE /v1/admin/keys/{keyHash}': [200, 401, 404],
      'GET /v1/admin/usage': [200, 400, 401, 404, 429],
      'PUT /v1/admin/tenants/{tenantId}/config': [200],
      'POST /v1/schedules': [201, 400, 429],
      'GET /v1/schedules': [200],
      'DELETE /v1/schedules/{scheduleId}': [200],
      'POST /v1/webhooks': [201, 400, 401, 409, 429, 503],
      'GET /v1/webhooks': [200, 401, 429],
      'DELETE /v1/webhooks/{webhookId}': [200, 401, 404, 429],
      'POST /v1/webhooks/{webhookId}/ping': [200, 401, 404, 429],
      'GET /v1/account/usage': [200, 401, 429],
    };
    const byName = new Map(operations(doc).map((o) => [operationName(o), o.op]));
    for (const [name, statuses] of Object.entries(named)) {
      const op = byName.get(name);
      assert.ok(op, `${name} is not documented`);
      const documented = Object.keys(op.responses ?? {});
      for (const status of statuses)
        assert.ok(
          documented.includes(String(status)),
          `${name} does not document ${status} (has ${documented.join(', ')})`,
        );
    }
  });

  it('documents downloads by content type only and the verification page as HTML', () => {
    const artifact = doc.paths['/v1/captures/{captureId}/artifacts/{name}']!.get!.responses!;
    for (const status of ['200', '206']) {
      const content = artifact[status]!.content!;
      assert.deepEqual(Object.keys(content).sort(), [
        'application/json',
        'application/wacz+zip',
        'image/png',
        'text/plain',
      ]);
      for (const media of Object.values(content)) assert.deepEqual(media.schema, { type: 'string', format: 'binary' });
    }
    assert.equal(artifact['416']!.content, undefined);
    const verify = doc.paths['/v1/verify/{captureId}']!.get!.responses!['200']!.content!;
    assert.deepEqual(Object.keys(verify).sort(), ['application/json', 'text/html']);
  });

  it('documents list parameters with their rules', () => {
    const list = doc.paths['/v1/captures']!.get! as {
      parameters: Array<{ name: string; schema: Record<string, unknown> }>;
    };
    const param = (name: string) => list.parameters.find((p) => p.name === name)?.schema;
    assert.deepEqual(param('limit'), { default: 20, type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
    assert.deepEqual((param('status') as { enum: string[] }).enum, ['pending', 'complete', 'failed']);
    assert.equal(param('url')!.minLength, 4);
    assert.deepEqual((param('sort') as { enum: string[] }).enum, ['created_at', '-created_at']);
  });
});
