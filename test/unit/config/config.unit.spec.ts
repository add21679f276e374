import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/config.js';

describe('configuration', () => {
  it('applies defaults', () => {
    const c = loadConfig({});
    assert.equal(c.PORT, 8080);
    assert.equal(c.BATCH_MAX, 20);
    assert.deepEqual(c.WEBHOOK_RETRY_DELAYS, [60, 300, 900]);
    assert.deepEqual([...c.ROLES].sort(), ['api', 'dispatcher', 'projector', 'scheduler', 'worker']);
    assert.equal(c.PUBLIC_BASE_URL, 'http://localhost:8080');
  });

  it('names the variable and the reason for a bad value', () => {
    for (const [env, pattern] of [
      [{ PORT: 'abc' }, /PORT must be a whole number/],
      [{ BATCH_MAX: '101' }, /BATCH_MAX must be between 1 and 100/],
      [{ SIGNING_KEY: 'short' }, /SIGNING_KEY/],
      [{ ROLES: 'api,cook' }, /ROLES.*unknown: cook/],
      [{ WEBHOOK_RETRY_DELAYS: '1,x' }, /WEBHOOK_RETRY_DELAYS/],
      [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    ] as const) {
      assert.throws(() => loadConfig(env as NodeJS.ProcessEnv), (e: Error) => e instanceof ConfigError && pattern.test(e.message));
    }
  });

  it('parses lists', () => {
    const c = loadConfig({ CORS_ORIGINS: 'https://a.example, https://b.example', ALLOW_PRIVATE_TARGETS: '127.0.0.1/32', PUBLIC_BASE_URL: 'https://x.example/' });
    assert.deepEqual(c.CORS_ORIGINS, ['https://a.example', 'https://b.example']);
    assert.deepEqual(c.ALLOW_PRIVATE_TARGETS, ['127.0.0.1/32']);
    assert.equal(c.PUBLIC_BASE_URL, 'https://x.example');
  });
});
