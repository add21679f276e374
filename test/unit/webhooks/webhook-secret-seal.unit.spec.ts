import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { openSecret, sealSecret } from '../../../src/webhooks/webhook-secret-store.js';

describe('sealed webhook secrets', () => {
  const secret = `svcsec_${randomBytes(32).toString('hex')}`;
  it('opens with its key for its own webhook, and the sealed form shows nothing of the secret', () => {
    const key = randomBytes(32);
    const sealed = sealSecret(key, secret, 'whk_a');
    assert.equal(openSecret(key, sealed, 'whk_a'), secret);
    assert.ok(
      !sealed.includes(secret.slice(7, 20)) && !Buffer.from(sealed, 'base64').toString('latin1').includes('svcsec_'),
    );
    assert.notEqual(sealSecret(key, secret, 'whk_a'), sealed, 'a fresh IV each time');
  });
  it('does not open with another key, for another webhook, or altered', () => {
    const key = randomBytes(32);
    const sealed = sealSecret(key, secret, 'whk_a');
    assert.throws(() => openSecret(randomBytes(32), sealed, 'whk_a'));
    assert.throws(() => openSecret(key, sealed, 'whk_b'));
    const bytes = Buffer.from(sealed, 'base64');
    bytes[bytes.length - 1]! ^= 1;
    assert.throws(() => openSecret(key, bytes.toString('base64'), 'whk_a'));
  });
});
