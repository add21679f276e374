import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { eventRecord } from '../../src/cli/commands/events.js';
import { newId } from '../../src/domain/ids.js';
import { tenantSubject } from '../../src/ledger/streams.js';
import { openWebhookSecretStore, WEBHOOK_KEY_BUCKET } from '../../src/webhooks/webhook-secret-store.js';
import { Kvm } from '@nats-io/kv';
import { type Infra, startInfra } from '../support/harness.js';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../support/test-server.js';
import { assertSigned, makePki, type Pki, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * Webhooks end to end (spec 4.13, 6): a real HTTPS receiver on 127.0.0.1 with a certificate from a CA made
 * here with openssl (trusted through WEBHOOK_CA_CERTS), capture outcomes appended through the tenant actor
 * (no browser: ROLES=api,projector,dispatcher), and a signature check written from the spec text alone.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PUBLIC_BASE = 'https://ledger.test';

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/**
 * Polls until `probe` gives a value. The limit is generous: on a busy host the dispatcher's consumer, the delayed
 * redeliveries and the projection of each attempt all wait for a core; `seen` says what there was at the end.
 */
async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 120_000, seen = () => undefined }: { timeoutMs?: number; seen?: () => unknown } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}; seen: ${JSON.stringify(seen()) ?? 'nothing'}`,
      );
    }
    await sleep(100);
  }
}

// ---- driving the service ----------------------------------------------------------------------------

const SYSTEM = { correlationId: 'webhooks-e2e', causedBy: { kind: 'system' as const, component: 'e2e' } };

function driver(s: () => TestServer) {
  let ip = 20;
  return {
    async tenantKey(tenantId: string, scopes: string[] = ['capture']): Promise<string> {
      const r = await s().call('POST', '/v1/admin/keys', {
        token: ADMIN_KEY,
        from: `127.0.0.${ip++}`,
        body: { tenantId, scopes, name: 'webhooks e2e' },
      });
      assert.equal(r.status, 201, r.text);
      return r.body.key as string;
    },
    async register(token: string, body: Record<string, unknown>) {
      return s().call('POST', '/v1/webhooks', { token, body });
    },
    async submit(tenantId: string): Promise<string> {
      const captureId = newId('cap');
      await s().server.ctx.tenants.execute(
        tenantId,
        {
          type: 'SubmitCaptures',
          data: { captures: [{ captureId, url: 'https://example.org/page' }], source: 'single' },
        },
        SYSTEM,
      );
      return captureId;
    },
    async complete(tenantId: string): Promise<string> {
      const captureId = await this.submit(tenantId);
      await s().server.ctx.tenants.execute(
        tenantId,
        {
          type: 'CompleteCapture',
          data: {
            captureId,
            completedAt: s().server.ctx.clock.now().toISOString(),
            renderQuality: 'full',
            render: { waitUntilReached: 'load', timedOut: false, durationMs: 800 },
            artifacts: {
              screenshot: `${captureId}/screenshot`,
              html: `${captureId}/html`,
              headers: `${captureId}/headers`,
              wacz: `${captureId}/wacz`,
            },
            bundle: { bundleHash: `sha256:${'0'.repeat(64)}`, size: 1234, version: '0.2.0', keyId: 'abcd1234' },
            storedBytes: 4096,
            attempts: 1,
          },
        },
        SYSTEM,
      );
      return captureId;
    },
    async fail(tenantId: string): Promise<string> {
      const captureId = await this.submit(tenantId);
      await s().server.ctx.tenants.execute(
        tenantId,
        {
          type: 'FailCapture',
          data: {
            captureId,
            error: 'The page did not load: DNS lookup failed.',
            retryable: false,
            attempts: 3,
            failureReason: 'target_unreachable',
          },
        },
        SYSTEM,
      );
      return captureId;
    },
    async deliveries(webhookId: string) {
      const r = await s().call('GET', `/v1/admin/webhooks/${webhookId}/deliveries`, { token: ADMIN_KEY });
      assert.equal(r.status, 200, r.text);
      return r.body as { data: any[]; deadLetters: any[] };
    },
  };
}

const baseEnv = (caPath: string, delays: string) => ({
  ROLES: 'api,projector,dispatcher',
  ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
  WEBHOOK_RETRY_DELAYS: delays,
  WEBHOOK_CA_CERTS: caPath,
  PUBLIC_BASE_URL: PUBLIC_BASE,
  RATE_LIMIT_IP_PER_MIN: '100000',
});

describe('webhooks (spec 4.13, 6)', () => {
  let pki: Pki;
  let rx: Receiver;
  let s: TestServer;
  const d = driver(() => s);

  before(async () => {
    pki = await makePki();
    rx = await startReceiver(pki);
    s = await startTestServer(baseEnv(pki.caPath, '1,1,1'));
  });
  after(async () => {
    await s?.stop();
    await rx?.close();
    if (pki) await rm(pki.dir, { recursive: true, force: true });
  });

  it('registers, lists without the secret, delivers a signed capture.complete, and deletes', async () => {
    const token = await d.tenantKey('wh-basic');
    const created = await d.register(token, {
      url: rx.url('/basic'),
      events: ['capture.complete', 'capture.complete'],
      name: 'Main receiver: prod-1',
    });
    assert.equal(created.status, 201, created.text);
    const hook = created.body;
    assert.match(hook.id, /^whk_[0-9a-f]{32}$/);
    assert.match(hook.secret, /^svcsec_[0-9a-f]{64}$/);
    assert.deepEqual(hook.events, ['capture.complete'], 'events deduplicated');
    assert.equal(hook.url, rx.url('/basic'));
    assert.equal(hook.name, 'Main receiver: prod-1');
    assert.equal(hook.warning, 'Store this secret now. It cannot be retrieved after this response.');
    assert.ok(!Number.isNaN(Date.parse(hook.createdAt)));

    const list = await s.call('GET', '/v1/webhooks', { token });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body, {
      data: [
        {
          id: hook.id,
          url: hook.url,
          events: ['capture.complete'],
          name: hook.name,
          createdAt: hook.createdAt,
          active: true,
        },
      ],
    });
    assert.ok(!list.text.includes(hook.secret.slice(7)), 'the secret is never listed');

    const captureId = await d.complete('wh-basic');
    const [got] = await waitFor('the delivery', () => (rx.at('/basic').length > 0 ? rx.at('/basic') : undefined));
    assertSigned(hook.secret, got!);
    assert.equal(got!.headers['content-type'], 'application/json');
    assert.equal(got!.headers['user-agent'], 'CaptureLedger-Webhooks/1');
    const env = got!.body;
    assert.deepEqual(Object.keys(env).sort(), ['createdAt', 'data', 'id', 'type']);
    assert.match(env.id, /^evt_[0-9a-f]{32}$/);
    assert.equal(got!.headers['x-svc-event-id'], env.id);
    assert.equal(env.type, 'capture.complete');
    const cap = `${PUBLIC_BASE}/v1/captures/${captureId}`;
    assert.deepEqual(env.data, {
      id: captureId,
      status: 'complete',
      url: 'https://example.org/page',
      createdAt: env.data.createdAt,
      completedAt: env.data.completedAt,
      renderQuality: 'full',
      artifacts: {
        screenshot: `${cap}/artifacts/screenshot`,
        html: `${cap}/artifacts/html`,
        headers: `${cap}/artifacts/headers`,
      },
      verifyUrl: `${PUBLIC_BASE}/v1/verify/${captureId}`,
    });
    assert.ok(Date.parse(env.data.completedAt) >= Date.parse(env.data.createdAt));

    const log = await waitFor('the attempt record', async () => {
      const l = await d.deliveries(hook.id);
      return l.data.length > 0 ? l : undefined;
    });
    assert.equal(log.data.length, 1);
    assert.equal(log.data[0].outcome, 'delivered');
    assert.equal(log.data[0].httpStatus, 200);
    assert.equal(log.data[0].attempt, 1);
    assert.equal(log.data[0].eventId, env.id);
    assert.deepEqual(log.deadLetters, []);

    const del = await s.call('DELETE', `/v1/webhooks/${hook.id}`, { token });
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, { id: hook.id, deleted: true });
    assertProblem((await s.call('DELETE', `/v1/webhooks/${hook.id}`, { token })).body, 404);
    assertProblem((await s.call('POST', `/v1/webhooks/${hook.id}/ping`, { token })).body, 404);
    assert.deepEqual((await s.call('GET', '/v1/webhooks', { token })).body, { data: [] });
    // Nothing is sent to a deleted webhook for later events.
    await d.complete('wh-basic');
    await sleep(1500);
    assert.equal(rx.at('/basic').length, 1);
  });

  it('keeps the secret out of the ledger and the operator output; deleting the webhook destroys it for good', async () => {
    const token = await d.tenantKey('wh-shred');
    const created = await d.register(token, { url: rx.url('/shred'), events: ['capture.complete'], name: 'shredded' });
    assert.equal(created.status, 201, created.text);
    const { id, secret } = created.body as { id: string; secret: string };
    const events = await s.server.store!.readSubject(tenantSubject('wh-shred'));
    const registered = events.find((e) => e.event.type === 'webhook.registered')!.event as unknown as {
      data: Record<string, unknown>;
    };
    assert.equal(registered.data['secret'], undefined);
    assert.equal(typeof registered.data['sealedSecret'], 'string');
    assert.ok(!JSON.stringify(events).includes(secret.slice(7)), 'the secret is nowhere in the log');
    const secrets = await openWebhookSecretStore(s.server.nats.nc);
    assert.equal(
      await secrets.open(id, registered.data['sealedSecret'] as string),
      secret,
      'the service can still sign with it',
    );
    // The operator CLI's event output shows no secret either (a registration from before sealing is masked).
    const legacy = {
      ...events[0]!,
      event: { ...registered, type: 'webhook.registered', data: { ...registered.data, secret } },
    } as never;
    assert.ok(!JSON.stringify(eventRecord(legacy)).includes(secret.slice(7)));

    assert.equal((await s.call('DELETE', `/v1/webhooks/${id}`, { token })).status, 200);
    assert.equal(
      await secrets.open(id, registered.data['sealedSecret'] as string),
      null,
      'the key is gone: the sealed secret opens to nothing',
    );
    // Shredded without a KV purge: with history 1 the delete marker is all the bucket keeps of the key.
    const history = [];
    for await (const e of await (await new Kvm(s.server.nats.nc).open(WEBHOOK_KEY_BUCKET)).history({ key: id }))
      history.push([e.operation, e.value.length]);
    assert.deepEqual(history, [['DEL', 0]], 'no revision of the key is left');
    // The tenant's subject also takes the usage recorder's flushes, at any time: compared are the events that were
    // there, and the deletion after them.
    const replayed = await s.server.store!.readSubject(tenantSubject('wh-shred'));
    assert.deepEqual(
      replayed.slice(0, events.length).map((e) => e.event.id),
      events.map((e) => e.event.id),
      'the log keeps every event',
    );
    const deleted = replayed.slice(events.length).filter((e) => e.event.type === 'webhook.deleted');
    assert.deepEqual(
      deleted.map((e) => (e.event.data as { webhookId: string }).webhookId),
      [id],
      'the deletion is recorded after them',
    );
  });

  it('sends each webhook only the types it subscribes to, and only events after its registration', async () => {
    const token = await d.tenantKey('wh-types');
    const a = (
      await d.register(token, { url: rx.url('/types-complete'), events: ['capture.complete'], name: 'complete only' })
    ).body;
    const b = (
      await d.register(token, { url: rx.url('/types-failed'), events: ['capture.failed'], name: 'failed only' })
    ).body;
    const c1 = await d.complete('wh-types');
    const c2 = await d.fail('wh-types');
    await waitFor('both deliveries', () => rx.at('/types-complete').length >= 1 && rx.at('/types-failed').length >= 1);
    const late = (
      await d.register(token, {
        url: rx.url('/types-late'),
        events: ['capture.complete', 'capture.failed'],
        name: 'late',
      })
    ).body;
    const c3 = await d.complete('wh-types');
    await waitFor(
      'the later deliveries',
      () => rx.at('/types-complete').length >= 2 && rx.at('/types-late').length >= 1,
    );
    await sleep(1500);

    assert.deepEqual(
      rx.at('/types-complete').map((r) => [r.body.type, r.body.data.id]),
      [
        ['capture.complete', c1],
        ['capture.complete', c3],
      ],
    );
    const failed = rx.at('/types-failed');
    assert.equal(failed.length, 1, 'the capture.failed webhook got no capture.complete events');
    assertSigned(b.secret, failed[0]!);
    assert.equal(failed[0]!.body.type, 'capture.failed');
    assert.deepEqual(failed[0]!.body.data, {
      id: c2,
      status: 'failed',
      url: 'https://example.org/page',
      createdAt: failed[0]!.body.data.createdAt,
      failedAt: failed[0]!.body.data.failedAt,
      error: 'The page did not load: DNS lookup failed.',
      retryable: false,
      failureReason: 'target_unreachable',
    });
    assert.deepEqual(
      rx.at('/types-late').map((r) => r.body.data.id),
      [c3],
      'a webhook registered later does not get earlier events',
    );
    assertSigned(a.secret, rx.at('/types-complete')[0]!);
    assertSigned(late.secret, rx.at('/types-late')[0]!);
    // Two webhooks got the same event with the same id.
    assert.equal(rx.at('/types-complete')[1]!.body.id, rx.at('/types-late')[0]!.body.id);
  });

  it('retries after 500, 500 and delivers on the 3rd attempt with the same bytes and event id', async () => {
    const token = await d.tenantKey('wh-retry');
    rx.script('/retry', [500, 500, 200]);
    const hook = (await d.register(token, { url: rx.url('/retry'), events: ['capture.complete'], name: 'flaky' })).body;
    await d.complete('wh-retry');
    let last: Awaited<ReturnType<typeof d.deliveries>> | undefined;
    const log = await waitFor(
      'delivery on attempt 3',
      async () => {
        last = await d.deliveries(hook.id);
        return last.data.some((x) => x.outcome === 'delivered') ? last : undefined;
      },
      { seen: () => ({ deliveries: last?.data, received: rx.at('/retry').map((r) => r.at) }) },
    );
    assert.deepEqual(
      log.data.map((x) => [x.attempt, x.outcome, x.httpStatus]),
      [
        [3, 'delivered', 200],
        [2, 'failed', 500],
        [1, 'failed', 500],
      ],
    );
    assert.ok(log.data[1].nextAttemptAt && log.data[2].nextAttemptAt, 'failed attempts say when the next one is due');
    assert.match(log.data[2].detail, /HTTP 500/);
    assert.deepEqual(log.deadLetters, []);
    const got = rx.at('/retry');
    assert.equal(got.length, 3);
    for (const r of got) assertSigned(hook.secret, r);
    assert.equal(new Set(got.map((r) => r.raw.toString('base64'))).size, 1, 'every attempt sends the same bytes');
    assert.equal(new Set(got.map((r) => r.headers['x-svc-event-id'])).size, 1);
    assert.ok(
      got[1]!.at - got[0]!.at >= 900 && got[2]!.at - got[1]!.at >= 900,
      'waits the configured delay between attempts',
    );
  });

  it('a 400 is permanent: one attempt, then a dead letter', async () => {
    const token = await d.tenantKey('wh-permanent');
    rx.script('/permanent', [400]);
    const hook = (await d.register(token, { url: rx.url('/permanent'), events: ['capture.complete'], name: 'rejects' }))
      .body;
    await d.complete('wh-permanent');
    const log = await waitFor('the dead letter', async () => {
      const l = await d.deliveries(hook.id);
      return l.deadLetters.length > 0 ? l : undefined;
    });
    assert.equal(log.data.length, 1);
    assert.equal(log.data[0].httpStatus, 400);
    assert.equal(log.deadLetters[0].attempts, 1);
    assert.match(log.deadLetters[0].reason, /HTTP 400/);
    assert.equal(log.deadLetters[0].eventId, log.data[0].eventId);
    await sleep(2500);
    assert.equal(rx.at('/permanent').length, 1, 'never retried');
  });

  it('an always-failing receiver gets 4 attempts, then the event is dead-lettered and never sent again', async () => {
    const token = await d.tenantKey('wh-dead');
    rx.script('/dead', [503]);
    const hook = (await d.register(token, { url: rx.url('/dead'), events: ['capture.complete'], name: 'down' })).body;
    await d.complete('wh-dead');
    const log = await waitFor('the dead letter', async () => {
      const l = await d.deliveries(hook.id);
      return l.deadLetters.length > 0 ? l : undefined;
    });
    assert.deepEqual(
      log.data.map((x) => [x.attempt, x.outcome, x.httpStatus]),
      [
        [4, 'failed', 503],
        [3, 'failed', 503],
        [2, 'failed', 503],
        [1, 'failed', 503],
      ],
    );
    assert.equal(log.data[0].nextAttemptAt, undefined, 'no next attempt after the last');
    assert.equal(log.deadLetters[0].attempts, 4);
    assert.match(log.deadLetters[0].reason, /after 4 attempts/);
    await sleep(2500);
    assert.equal(rx.at('/dead').length, 4);
  });

  it('ping sends a signed ping event and reports success or failure without changing the webhook', async () => {
    const token = await d.tenantKey('wh-ping');
    rx.script('/ping-bad', [500]);
    const ok = (await d.register(token, { url: rx.url('/ping-ok'), events: ['capture.complete'], name: 'ping ok' }))
      .body;
    const bad = (await d.register(token, { url: rx.url('/ping-bad'), events: ['capture.complete'], name: 'ping bad' }))
      .body;
    const refused = (
      await d.register(token, {
        url: `https://127.0.0.1:${await closedPort()}/hook`,
        events: ['capture.failed'],
        name: 'nobody home',
      })
    ).body;

    const good = await s.call('POST', `/v1/webhooks/${ok.id}/ping`, { token });
    assert.equal(good.status, 200, good.text);
    assert.equal(good.body.success, true);
    assert.equal(good.body.httpStatus, 200);
    assert.ok(Number.isInteger(good.body.latencyMs) && good.body.latencyMs >= 0);
    assert.equal(good.body.detail, undefined);
    const [pinged] = rx.at('/ping-ok');
    assertSigned(ok.secret, pinged!);
    assert.equal(pinged!.body.type, 'ping');
    assert.match(pinged!.body.id, /^evt_[0-9a-f]{32}$/);
    assert.equal(pinged!.headers['x-svc-event-id'], pinged!.body.id);

    // No body is needed; an empty body labelled as JSON is accepted too.
    const labelled = await s.call('POST', `/v1/webhooks/${ok.id}/ping`, {
      token,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(labelled.status, 200, labelled.text);
    assert.equal(labelled.body.success, true);

    const non2xx = await s.call('POST', `/v1/webhooks/${bad.id}/ping`, { token });
    assert.equal(non2xx.status, 200);
    assert.deepEqual([non2xx.body.success, non2xx.body.httpStatus], [false, 500]);
    assert.match(non2xx.body.detail, /500/);

    const down = await s.call('POST', `/v1/webhooks/${refused.id}/ping`, { token });
    assert.equal(down.status, 200);
    assert.equal(down.body.success, false);
    assert.equal(down.body.httpStatus, 0);
    assert.ok(Number.isInteger(down.body.latencyMs));
    assert.match(down.body.detail, /refused|ECONNREFUSED/i);

    const list = await s.call('GET', '/v1/webhooks', { token });
    assert.deepEqual(
      list.body.data.map((w: any) => [w.id, w.active]),
      [
        [ok.id, true],
        [bad.id, true],
        [refused.id, true],
      ],
    );
    assert.deepEqual((await d.deliveries(bad.id)).data, [], 'pings are not delivery attempts');

    const other = await d.tenantKey('wh-ping-other');
    assertProblem((await s.call('POST', `/v1/webhooks/${ok.id}/ping`, { token: other })).body, 404);
    assertProblem((await s.call('DELETE', `/v1/webhooks/${ok.id}`, { token: other })).body, 404);
    assertProblem((await s.call('POST', `/v1/webhooks/whk_${'0'.repeat(32)}/ping`, { token })).body, 404);
  });

  it('validates registrations: https only, fields named, private targets refused, at most 5 (409)', async () => {
    const token = await d.tenantKey('wh-rules');
    const valid = { url: rx.url('/rules'), events: ['capture.complete'], name: 'ok' };
    const bad = async (body: unknown, field: RegExp, status = 400) => {
      const r = await d.register(token, body as Record<string, unknown>);
      assert.equal(r.status, status, r.text);
      assertProblem(r.body, status);
      assert.match(r.body.detail, field);
      return r;
    };
    await bad({ ...valid, url: 'http://127.0.0.1/hook' }, /url.*https/);
    await bad({ ...valid, url: `https://example.org/${'a'.repeat(2048)}` }, /url.*2048/);
    await bad({ ...valid, url: 'not a url' }, /url/);
    await bad({ events: valid.events, name: valid.name }, /url.*required/);
    await bad({ ...valid, events: [] }, /events/);
    await bad({ ...valid, events: ['capture.pending'] }, /events/);
    await bad({ ...valid, events: 'capture.complete' }, /events/);
    await bad({ ...valid, name: '' }, /name/);
    await bad({ ...valid, name: 'x'.repeat(129) }, /name/);
    await bad({ ...valid, name: 'bad<name>' }, /name/);
    const priv = await bad({ ...valid, url: 'https://10.1.2.3/hook' }, /url/);
    assert.match(priv.body.detail, /public internet address/);
    await bad({ ...valid, url: 'https://192.168.0.10/hook' }, /url/);
    await bad({ ...valid, url: 'https://user:pw@example.org/hook' }, /url/);
    assertProblem((await s.call('POST', '/v1/webhooks', { token, body: '{"url":' })).body, 400);
    assertProblem(
      (await s.call('POST', '/v1/webhooks', { token, body: '', headers: { 'content-type': 'application/json' } })).body,
      400,
    );
    const wrongType = await s.call('POST', '/v1/webhooks', {
      token,
      body: JSON.stringify(valid),
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(wrongType.status, 415);
    assertProblem((await s.call('POST', '/v1/webhooks', { body: valid })).body, 401);
    assertProblem((await s.call('GET', '/v1/webhooks')).body, 401);
    const reader = await d.tenantKey('wh-rules', ['read']);
    assertProblem((await s.call('GET', '/v1/webhooks', { token: reader })).body, 403);

    // A name that does not resolve here (no network) is accepted: the dispatcher checks again at send time.
    const unresolved = await d.register(token, { ...valid, url: 'https://hooks.example.invalid/capture-ledger' });
    assert.equal(unresolved.status, 201, unresolved.text);
    for (let i = 0; i < 4; i++) assert.equal((await d.register(token, { ...valid, name: `hook ${i}` })).status, 201);
    const sixth = await d.register(token, { ...valid, name: 'one too many' });
    assert.equal(sixth.status, 409);
    assertProblem(sixth.body, 409);
    assert.equal((await s.call('GET', '/v1/webhooks', { token })).body.data.length, 5);
  });

  it('operators list deliveries with the admin credential only', async () => {
    assertProblem((await s.call('GET', `/v1/admin/webhooks/whk_${'0'.repeat(32)}/deliveries`)).body, 401);
    const token = await d.tenantKey('wh-admin');
    assertProblem((await s.call('GET', `/v1/admin/webhooks/whk_${'0'.repeat(32)}/deliveries`, { token })).body, 401);
    assertProblem(
      (await s.call('GET', `/v1/admin/webhooks/whk_${'0'.repeat(32)}/deliveries`, { token: ADMIN_KEY })).body,
      404,
    );
  });
});

describe('webhook delivery across a dispatcher restart', () => {
  it('a new dispatcher on the same NATS and Postgres finishes a delivery the stopped one started', async () => {
    const pki = await makePki();
    const rx = await startReceiver(pki);
    const infra: Infra = await startInfra();
    const env = baseEnv(pki.caPath, '4,4,4');
    let first: TestServer | null = await startTestServer(env, { infra });
    let second: TestServer | null = null;
    try {
      let current = first;
      const d = driver(() => current);
      const token = await d.tenantKey('wh-restart');
      rx.script('/restart', [500, 200]);
      const hook = (await d.register(token, { url: rx.url('/restart'), events: ['capture.complete'], name: 'restart' }))
        .body;
      await d.complete('wh-restart');
      await waitFor('the failed first attempt, recorded', async () => (await d.deliveries(hook.id)).data.length === 1);
      await first.stop();
      const stoppedAt = Date.now();
      first = null;
      assert.equal(rx.at('/restart').length, 1);

      second = await startTestServer(env, { infra, databaseUrl: current.databaseUrl });
      current = second;
      const log = await waitFor('delivery by the new dispatcher', async () => {
        const l = await d.deliveries(hook.id);
        return l.data.some((x) => x.outcome === 'delivered') ? l : undefined;
      });
      assert.deepEqual(
        log.data.map((x) => [x.attempt, x.outcome, x.httpStatus]),
        [
          [2, 'delivered', 200],
          [1, 'failed', 500],
        ],
      );
      const got = rx.at('/restart');
      assert.equal(got.length, 2);
      assert.ok(got[1]!.at > stoppedAt, 'the second attempt came after the first dispatcher stopped');
      assert.ok(got[1]!.at - got[0]!.at >= 3900, 'the schedule (nak delay) survived the restart');
      assert.equal(got[0]!.raw.toString('utf8'), got[1]!.raw.toString('utf8'));
      for (const r of got) assertSigned(hook.secret, r);
    } finally {
      await first?.stop();
      await second?.stop();
      await infra.stop();
      await rx.close();
      await rm(pki.dir, { recursive: true, force: true });
    }
  });
});
