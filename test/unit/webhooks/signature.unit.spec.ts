import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { generateWebhookSecret, signWebhookPayload, verifyWebhookSignature } from '../../../src/webhooks/signature.js';

const KEY_HEX = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const SECRET = `svcsec_${KEY_HEX}`;
const BODY = '{"id":"evt_1","type":"ping"}';
const T = 1_700_000_000;

describe('webhook signature (spec 6.5)', () => {
  it('matches a vector computed from the spec text', () => {
    // Computed with `openssl dgst -sha256 -mac HMAC -macopt hexkey:<KEY_HEX>` over "1700000000.<BODY>".
    const openssl = '81298de54029d36f26f86823dfc79fee0f597ff38f6bd3d8def4e8e8c950973b';
    // And again here: key = hex-decoded part after "svcsec_", payload = "{t}.{raw body}".
    const independent = createHmac('sha256', Buffer.from(KEY_HEX, 'hex')).update(`${T}.${BODY}`).digest('hex');
    assert.equal(independent, openssl);
    const signed = signWebhookPayload(SECRET, T, BODY);
    assert.deepEqual(signed, { header: `t=${T},v1=${openssl}`, signature: openssl });
  });

  it('does not use the whole secret string as the key', () => {
    const wrong = createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex');
    assert.notEqual(signWebhookPayload(SECRET, T, BODY).signature, wrong);
  });

  it('signs the raw bytes: a Buffer body equals its string, re-serialised JSON does not', () => {
    const raw = '{"b": 1,  "a":"é"}';
    assert.equal(
      signWebhookPayload(SECRET, T, Buffer.from(raw, 'utf8')).signature,
      signWebhookPayload(SECRET, T, raw).signature,
    );
    assert.notEqual(
      signWebhookPayload(SECRET, T, JSON.stringify(JSON.parse(raw))).signature,
      signWebhookPayload(SECRET, T, raw).signature,
    );
  });

  it('verifies within the tolerance and rejects outside it', () => {
    const { header } = signWebhookPayload(SECRET, T, BODY);
    assert.deepEqual(verifyWebhookSignature(SECRET, header, BODY, { nowSeconds: T }), { ok: true, timestamp: T });
    assert.equal(verifyWebhookSignature(SECRET, header, BODY, { nowSeconds: T + 300 }).ok, true);
    assert.equal(verifyWebhookSignature(SECRET, header, BODY, { nowSeconds: T - 300 }).ok, true);
    assert.deepEqual(verifyWebhookSignature(SECRET, header, BODY, { nowSeconds: T + 301 }), {
      ok: false,
      reason: 'stale_timestamp',
    });
    assert.deepEqual(verifyWebhookSignature(SECRET, header, BODY, { nowSeconds: T - 301 }), {
      ok: false,
      reason: 'stale_timestamp',
    });
    assert.equal(
      verifyWebhookSignature(SECRET, header, BODY, { nowSeconds: T + 1000, toleranceSeconds: 1000 }).ok,
      true,
    );
  });

  it('rejects a changed body, another secret, a moved timestamp and malformed headers', () => {
    const { header, signature } = signWebhookPayload(SECRET, T, BODY);
    const opts = { nowSeconds: T };
    assert.deepEqual(verifyWebhookSignature(SECRET, header, `${BODY} `, opts), { ok: false, reason: 'mismatch' });
    assert.deepEqual(verifyWebhookSignature(generateWebhookSecret(), header, BODY, opts), {
      ok: false,
      reason: 'mismatch',
    });
    assert.deepEqual(verifyWebhookSignature(SECRET, `t=${T + 1},v1=${signature}`, BODY, { nowSeconds: T + 1 }), {
      ok: false,
      reason: 'mismatch',
    });
    for (const bad of [
      '',
      `v1=${signature}`,
      `t=${T}`,
      `t=abc,v1=${signature}`,
      `t=${T},v1=${signature.slice(2)}`,
      'garbage',
    ]) {
      assert.deepEqual(verifyWebhookSignature(SECRET, bad, BODY, opts), { ok: false, reason: 'malformed_header' }, bad);
    }
  });

  it('accepts the header in any order and with extra v1 entries', () => {
    const { signature } = signWebhookPayload(SECRET, T, BODY);
    assert.equal(
      verifyWebhookSignature(SECRET, `v1=${'0'.repeat(64)}, v1=${signature}, t=${T}`, BODY, { nowSeconds: T }).ok,
      true,
    );
  });

  it('generates svcsec_ + 64 lowercase hex, different every time', () => {
    const a = generateWebhookSecret();
    assert.match(a, /^svcsec_[0-9a-f]{64}$/);
    assert.notEqual(a, generateWebhookSecret());
    const { header } = signWebhookPayload(a, T, BODY);
    assert.equal(verifyWebhookSignature(a, header, BODY, { nowSeconds: T }).ok, true);
  });

  it('refuses a secret or timestamp of the wrong shape', () => {
    assert.throws(() => signWebhookPayload('svcsec_abc', T, BODY), TypeError);
    assert.throws(() => signWebhookPayload(KEY_HEX, T, BODY), TypeError);
    assert.throws(() => signWebhookPayload(SECRET, 1.5, BODY), RangeError);
  });
});
