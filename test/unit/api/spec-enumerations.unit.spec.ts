import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SignedBundle } from '../../../src/archive/bundle.js';
import type { LocalTsa } from '../../../src/archive/local-tsa.js';
import type { TypedApp } from '../../../src/api/app.js';
import { verificationSchema } from '../../../src/api/routes/verification.js';
import { SPEC_CHECK_NAMES, verificationResult } from '../../../src/application/verification-result.js';
import { verifyBundleWithLog, type TransparencyResult } from '../../../src/transparency/verify-transparency.js';
import { verifyBundle } from '../../../packages/verifier/src/index.js';
import type { CaptureRow } from '../../../projections/read-models/captures.js';
import { openApiApp } from '../../support/openapi-document.js';
import type { OpenApiDoc } from '../../support/openapi-check.js';
import {
  bundlesOfBothVersions,
  closeBundlesOfBothVersions,
  type publishedKeys,
  readJson,
  rezip,
  sampleCapture,
  unzip,
  writeJson,
} from '../archive/bundle-fixture.js';

/**
 * Contract: the spec's enumerations and counted lists, exactly (DESIGN decision 16). Extensions stand
 * beside them — the transparency log's result is the verify result's `transparency`, never a fifth check.
 */

const V1_CHECKS = ['artifactHashes', 'bundleHash', 'signature'];
const V2_CHECKS = ['artifactHashes', 'bundleHash', 'signature', 'timestamp'];

const row = (captureId: string): CaptureRow => ({
  capture_id: captureId,
  tenant_id: 't',
  url: 'https://example.org/',
  status: 'complete',
  created_at: new Date('2024-05-01T10:00:00Z'),
  completed_at: new Date('2024-05-01T10:00:05Z'),
  failed_at: null,
  render_quality: 'full',
  render: null,
  artifacts: null,
  bundle: null,
  capture_settings: null,
  error: null,
  retryable: null,
  failure_reason: null,
  schedule_id: null,
  stored_bytes: null,
  final_url: null,
});

const logResults: Array<TransparencyResult | null> = [
  null,
  {
    status: 'pass',
    detail: 'leaf 6 of ledger.test/v1/log, included in its signed checkpoint of 10 leaves',
    leafIndex: 6,
    checkpoint: 'cp',
    inclusionProof: [],
    logKey: 'k',
  },
  { status: 'fail', detail: "the bundle's leaf is not at index 6" },
  { status: 'skip', detail: 'not in the log yet' },
];

describe('contract: the verification result of spec 2.6', () => {
  let dir: string;
  let tsa: LocalTsa;
  let v1: SignedBundle;
  let v2: SignedBundle;
  let options: { keys: ReturnType<typeof publishedKeys>; tsaCaCertsPem: string[] };

  before(async () => {
    ({ dir, tsa, v1, v2, options } = await bundlesOfBothVersions('spec-enumerations-'));
  });
  after(() => closeBundlesOfBothVersions({ dir, tsa }));

  const names = (r: { checks: Array<{ name: string }> }) => r.checks.map((c) => c.name);

  it('names exactly the four checks of spec 2.6, in its order', () => {
    assert.deepEqual([...SPEC_CHECK_NAMES], V2_CHECKS);
  });

  it('gives 3 checks for a v0.1.0 bundle and 4 for a v0.2.0 one, whatever the transparency log says', async () => {
    for (const [bundle, expected] of [
      [v1, V1_CHECKS],
      [v2, V2_CHECKS],
    ] as const) {
      const verified = await verifyBundle(bundle.bytes, options);
      for (const log of logResults) {
        const result = verificationResult(row(sampleCapture().captureId), verified, log);
        assert.deepEqual(names(result), expected, `${bundle.ref.version} with log ${log?.status ?? 'absent'}`);
        // `verified` is the spec's: all of those checks pass or skip; the log's result stands beside it.
        assert.equal(result.verified, true);
        assert.deepEqual(result.transparency, log ?? undefined);
        verificationSchema.parse(result);
      }
    }
  });

  it('keeps the spec checks when checks fail or skip, and when the bundle is missing from storage', async () => {
    const files = unzip(v2.bytes);
    const dp = readJson(files, 'datapackage.json');
    dp.title = 'altered';
    writeJson(files, 'datapackage.json', dp);
    const tampered = verificationResult(row('cap_x'), await verifyBundle(rezip(files), options), logResults[1]!);
    assert.deepEqual(names(tampered), V2_CHECKS);
    assert.equal(tampered.verified, false);
    const missing = verificationResult(row('cap_x'), null, null);
    assert.deepEqual(names(missing), V1_CHECKS);
    assert.equal(missing.verified, false);
  });

  it('the offline verifier with --log-url reports the log beside the same checks', async () => {
    const result = await verifyBundleWithLog(v2.bytes, {
      ...options,
      transparency: { unavailable: 'not in the log yet' },
    });
    assert.deepEqual(names(result), V2_CHECKS);
    assert.equal(result.transparency?.status, 'skip');
  });

  it('the schema refuses a check name the spec does not list', () => {
    const extra = {
      ...verificationResult(row('cap_x'), null, null),
      checks: [{ name: 'transparency', status: 'pass' }],
    };
    assert.throws(() => verificationSchema.parse(extra));
  });
});

describe("contract: the OpenAPI document's enumerations are the spec's", () => {
  let app: TypedApp;
  let doc: OpenApiDoc;
  before(async () => {
    ({ app, doc } = await openApiApp());
  });
  after(() => app?.close());

  /** The JSON schema of a response (or a parameter) by path, with `properties` steps spelled `.name`. */
  const at = (path: string[]): any =>
    path.reduce<any>((node, step) => (step.startsWith('.') ? node?.properties?.[step.slice(1)] : node?.[step]), doc);
  const json = (p: string, method: string, status: string) => [
    'paths',
    p,
    method,
    'responses',
    status,
    'content',
    'application/json',
    'schema',
  ];
  const param = (p: string, method: string, name: string) =>
    (doc.paths[p] as any)[method].parameters.find((x: any) => x.name === name).schema;

  it('pins every enumeration the spec names', () => {
    const pinned: Array<[string, unknown, unknown]> = [
      [
        '2.6 check name',
        at([...json('/v1/verify/{captureId}', 'get', '200'), '.checks', 'items', '.name']).enum,
        V2_CHECKS,
      ],
      [
        '2.6 check status',
        at([...json('/v1/verify/{captureId}', 'get', '200'), '.checks', 'items', '.status']).enum,
        ['pass', 'fail', 'skip'],
      ],
      [
        '2.6 renderQuality',
        at([...json('/v1/verify/{captureId}', 'get', '200'), '.capture', '.renderQuality']).enum,
        ['full', 'partial'],
      ],
      [
        '2.1 status',
        at([...json('/v1/captures', 'get', '200'), '.data', 'items', '.status']).enum,
        ['pending', 'complete', 'failed'],
      ],
      [
        '2.1 renderQuality',
        at([...json('/v1/captures', 'get', '200'), '.data', 'items', '.renderQuality']).enum,
        ['full', 'partial'],
      ],
      [
        '2.2 status',
        at([...json('/v1/captures/{captureId}/status', 'get', '200'), '.status']).enum,
        ['pending', 'complete', 'failed'],
      ],
      ['2.3 status', at([...json('/v1/captures/{captureId}', 'get', '200'), '.status']).enum, ['complete']],
      [
        '2.3 waitUntilReached',
        at([...json('/v1/captures/{captureId}', 'get', '200'), '.render', '.waitUntilReached']).enum,
        ['domcontentloaded', 'load', 'networkidle'],
      ],
      [
        '2.3 settleReason',
        at([...json('/v1/captures/{captureId}', 'get', '200'), '.render', '.settleReason']).enum,
        ['idle', 'cap'],
      ],
      ['4.1 health status', at([...json('/health', 'get', '200'), '.status']).enum, ['ok']],
      ['4.2 status filter', param('/v1/captures', 'get', 'status').enum, ['pending', 'complete', 'failed']],
      ['4.2 sort', param('/v1/captures', 'get', 'sort').enum, ['created_at', '-created_at']],
      [
        '4.8 artifact name',
        [...param('/v1/captures/{captureId}/artifacts/{name}', 'get', 'name').enum].sort(),
        ['headers', 'html', 'screenshot', 'screenshot-before', 'wacz'],
      ],
      ['2.7 algorithm', at([...json('/.well-known/signing-key', 'get', '200'), '.algorithm']).enum, ['Ed25519']],
      [
        '2.8 scopes',
        at([
          'paths',
          '/v1/admin/keys',
          'post',
          'requestBody',
          'content',
          'application/json',
          'schema',
          '.scopes',
          'items',
        ]).enum,
        ['capture', 'read', 'admin'],
      ],
      ['4.11 include', param('/v1/admin/keys', 'get', 'include').enum, ['revoked']],
      [
        '2.9 events',
        at([
          'paths',
          '/v1/webhooks',
          'post',
          'requestBody',
          'content',
          'application/json',
          'schema',
          '.events',
          'items',
        ]).enum,
        ['capture.complete', 'capture.failed'],
      ],
      [
        '7.1 type',
        (doc.components!.schemas!.Problem as any).properties.type.const ??
          (doc.components!.schemas!.Problem as any).properties.type.enum?.[0],
        'about:blank',
      ],
      [
        '7.3 limitType',
        (doc.components!.schemas!.Problem as any).properties.limitType.enum,
        ['tenant', 'quota', 'schedules'],
      ],
      [
        '7.3 quota.resource',
        (doc.components!.schemas!.Problem as any).properties.quota.properties.resource.enum,
        ['captures', 'storage'],
      ],
      [
        '6.1 event types',
        Object.keys((doc as any).webhooks ?? {}).sort(),
        ['capture.complete', 'capture.failed', 'ping'],
      ],
    ];
    for (const [what, actual, expected] of pinned) assert.deepEqual(actual, expected, `spec ${what}`);
  });
});
