import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { availableParallelism, totalmem } from 'node:os';
import { ConfigError, defaultWorkerConcurrency, loadConfig } from '../../../src/config/config.js';
import { defaultReplayOrigin } from '../../../src/api/replay-server.js';

describe('configuration', () => {
  it('applies defaults', () => {
    const c = loadConfig({});
    assert.equal(c.PORT, 8080);
    assert.equal(c.BATCH_MAX, 20);
    assert.deepEqual(c.WEBHOOK_RETRY_DELAYS, [60, 300, 900]);
    assert.deepEqual([...c.ROLES].sort(), [
      'api',
      'dispatcher',
      'projector',
      'scheduler',
      'sequencer',
      'signer',
      'worker',
    ]);
    assert.equal(c.PUBLIC_BASE_URL, 'http://localhost:8080');
    assert.equal(c.ACTOR_IDLE_MS, 300_000);
    assert.equal(loadConfig({ ACTOR_IDLE_MS: '60000' }).ACTOR_IDLE_MS, 60_000);
  });

  it('names the variable and the reason for a bad value', () => {
    for (const [env, pattern] of [
      [{ PORT: 'abc' }, /PORT must be a whole number/],
      [{ BATCH_MAX: '101' }, /BATCH_MAX must be between 1 and 100/],
      [{ SIGNING_KEY: 'short' }, /SIGNING_KEY/],
      [{ ROLES: 'api,cook' }, /ROLES.*unknown: cook/],
      [{ SIGNER: 'elsewhere' }, /SIGNER must be local or remote/],
      [{ WEBHOOK_RETRY_DELAYS: '1,x' }, /WEBHOOK_RETRY_DELAYS/],
      [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
      [{ ACTOR_IDLE_MS: '10' }, /ACTOR_IDLE_MS must be between 1000 and/],
      [{ NATS_REPLICAS: '7' }, /NATS_REPLICAS must be between 1 and 5/],
      [{ CAPTURE_API_KEY: 'short-key' }, /CAPTURE_API_KEY must be at least 16 characters/],
      [{ METRICS_TOKEN: 'short' }, /METRICS_TOKEN must be at least 16 characters/],
      [
        { TRUST_PROXY: 'proxy.example' },
        /TRUST_PROXY must be true, false, a hop count or comma-separated addresses\/CIDRs; not understood: proxy\.example/,
      ],
    ] as const) {
      assert.throws(
        () => loadConfig(env as NodeJS.ProcessEnv),
        (e: Error) => e instanceof ConfigError && pattern.test(e.message),
      );
    }
  });

  it('takes an optional ANALYST_KEY of 16 characters or more that is no other credential', () => {
    assert.equal(loadConfig({}).ANALYST_KEY, undefined);
    assert.equal(loadConfig({ ANALYST_KEY: ' analyst-key-0123456789 ' }).ANALYST_KEY, 'analyst-key-0123456789');
    for (const [env, pattern] of [
      [{ ANALYST_KEY: 'short-key' }, /ANALYST_KEY must be at least 16 characters/],
      [
        { ANALYST_KEY: 'same-key-0123456789', ADMIN_KEY: 'same-key-0123456789' },
        /ANALYST_KEY must differ from ADMIN_KEY/,
      ],
      [
        { ANALYST_KEY: 'same-key-0123456789', CAPTURE_API_KEY: 'same-key-0123456789' },
        /ANALYST_KEY must differ from CAPTURE_API_KEY/,
      ],
    ] as const)
      assert.throws(
        () => loadConfig(env as NodeJS.ProcessEnv),
        (e: Error) => e instanceof ConfigError && pattern.test(e.message),
        JSON.stringify(env),
      );
  });

  it('keeps the replay origin apart from the API origin', () => {
    assert.equal(loadConfig({}).REPLAY_PORT, 0);
    assert.equal(loadConfig({}).REPLAY_ORIGIN, undefined);
    assert.equal(
      loadConfig({ REPLAY_ORIGIN: 'https://replay.example/', PUBLIC_BASE_URL: 'https://x.example' }).REPLAY_ORIGIN,
      'https://replay.example',
    );
    assert.throws(
      () => loadConfig({ REPLAY_ORIGIN: 'https://x.example', PUBLIC_BASE_URL: 'https://x.example/' }),
      /REPLAY_ORIGIN must be another origin than PUBLIC_BASE_URL/,
    );
    assert.throws(
      () => loadConfig({ REPLAY_ORIGIN: 'https://replay.example/path' }),
      /REPLAY_ORIGIN must be an origin/,
    );
    assert.throws(() => loadConfig({ PORT: '8080', REPLAY_PORT: '8080' }), /REPLAY_PORT must differ from PORT/);
    assert.equal(defaultReplayOrigin('http://localhost:8080', 8081), 'http://127.0.0.1:8081');
    assert.equal(defaultReplayOrigin('http://127.0.0.1:8080', 8081), 'http://localhost:8081');
    assert.equal(defaultReplayOrigin('https://x.example', 8443), 'https://x.example:8443');
  });

  it('brings the signer into a worker process unless SIGNER=remote', () => {
    assert.deepEqual([...loadConfig({ ROLES: 'worker' }).ROLES].sort(), ['signer', 'worker']);
    assert.deepEqual([...loadConfig({ ROLES: 'worker', SIGNER: 'remote' }).ROLES], ['worker']);
    assert.deepEqual([...loadConfig({ ROLES: 'api,projector' }).ROLES].sort(), ['api', 'projector']);
    assert.deepEqual([...loadConfig({ ROLES: 'signer' }).ROLES], ['signer']);
  });

  it('reads TRUST_PROXY as a boolean, a hop count or addresses', () => {
    assert.equal(loadConfig({}).TRUST_PROXY, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY, true);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY, 2);
    assert.equal(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).TRUST_PROXY, '10.0.0.0/8,127.0.0.1');
  });

  it('parses lists', () => {
    const c = loadConfig({
      CORS_ORIGINS: 'https://a.example, https://b.example',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      PUBLIC_BASE_URL: 'https://x.example/',
    });
    assert.deepEqual(c.CORS_ORIGINS, ['https://a.example', 'https://b.example']);
    assert.deepEqual(c.ALLOW_PRIVATE_TARGETS, ['127.0.0.1/32']);
    assert.equal(c.PUBLIC_BASE_URL, 'https://x.example');
  });

  it('chooses the default WORKER_CONCURRENCY from cores and memory', () => {
    const GB = 1024 ** 3;
    assert.equal(defaultWorkerConcurrency(2, 24 * GB), 4, 'two per core');
    assert.equal(defaultWorkerConcurrency(8, 2 * GB), 4, 'memory-bound: 1 GB kept, 250 MB per capture');
    assert.equal(defaultWorkerConcurrency(1, 512 * 1024 ** 2), 1, 'never below one');
    assert.equal(defaultWorkerConcurrency(64, 256 * GB), 16, 'never above sixteen');
    assert.equal(loadConfig({}).WORKER_CONCURRENCY, defaultWorkerConcurrency(availableParallelism(), totalmem()));
    assert.equal(loadConfig({ WORKER_CONCURRENCY: '3' }).WORKER_CONCURRENCY, 3);
  });
});
