import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/config.js';
import { cosignerFromSeed } from '../../../src/witness/cosigner.js';
import { noteSignerFromSeed, verifierKeyString } from '../../../src/transparency/checkpoint.js';

/** The witness settings (docs/transparency.md, Witnesses): the log's LOG_WITNESSES and quorum, and ROLES=witness. */

const w1 = cosignerFromSeed('w1.example/witness', new Uint8Array(32).fill(1)).vkey;
const w2 = cosignerFromSeed('w2.example/witness', new Uint8Array(32).fill(2)).vkey;
const logKey = verifierKeyString(noteSignerFromSeed('ledger.example/v1/log', new Uint8Array(32).fill(3)));
const refused = (env: NodeJS.ProcessEnv, pattern: RegExp) =>
  assert.throws(
    () => loadConfig(env),
    (e: Error) => e instanceof ConfigError && pattern.test(e.message),
  );

describe('witness configuration', () => {
  it('no witnesses by default; the quorum defaults to all of LOG_WITNESSES', () => {
    assert.deepEqual(loadConfig({}).LOG_WITNESSES, []);
    assert.equal(loadConfig({}).LOG_WITNESS_QUORUM, 0);
    const c = loadConfig({ LOG_WITNESSES: `${w1} https://w1.example/,\n${w2} http://127.0.0.1:9000` });
    assert.deepEqual(
      c.LOG_WITNESSES.map((w) => [w.name, w.url]),
      [
        ['w1.example/witness', 'https://w1.example'],
        ['w2.example/witness', 'http://127.0.0.1:9000'],
      ],
    );
    assert.equal(c.LOG_WITNESS_QUORUM, 2);
    assert.equal(
      loadConfig({ LOG_WITNESSES: `${w1} https://w1.example`, LOG_WITNESS_QUORUM: '1' }).LOG_WITNESS_QUORUM,
      1,
    );
  });

  it('names what is wrong with LOG_WITNESSES and LOG_WITNESS_QUORUM', () => {
    refused({ LOG_WITNESSES: w1 }, /LOG_WITNESSES entry 1 must be '<witness vkey> <http\(s\) URL>'/);
    refused({ LOG_WITNESSES: `${w1} ftp://w1.example` }, /LOG_WITNESSES entry 1/);
    refused({ LOG_WITNESSES: `${logKey} https://x.example` }, /entry 1: .*not an Ed25519 cosignature key/);
    refused({ LOG_WITNESSES: `${w1} https://a.example,${w1} https://b.example` }, /names a witness twice/);
    refused(
      { LOG_WITNESSES: `${w1} https://w1.example`, LOG_WITNESS_QUORUM: '2' },
      /LOG_WITNESS_QUORUM must be between 1 and the 1/,
    );
    refused({ LOG_WITNESS_QUORUM: '1' }, /LOG_WITNESS_QUORUM/);
    refused({ LOG_WITNESS_QUORUM: 'all' }, /LOG_WITNESS_QUORUM must be a whole number/);
  });

  it('ROLES=witness runs alone, is never a default role, and needs the log keys it witnesses', () => {
    assert.ok(!loadConfig({}).ROLES.has('witness'));
    const c = loadConfig({ ROLES: 'witness', WITNESS_LOG_KEYS: logKey, PUBLIC_BASE_URL: 'https://w.example/x' });
    assert.deepEqual([...c.ROLES], ['witness']);
    assert.deepEqual(c.WITNESS_LOG_KEYS, [logKey]);
    assert.equal(c.WITNESS_NAME, 'w.example/x/witness');
    refused({ ROLES: 'witness,api', WITNESS_LOG_KEYS: logKey }, /ROLES=witness runs alone/);
    refused({ ROLES: 'witness' }, /WITNESS_LOG_KEYS must name/);
    refused({ ROLES: 'witness', WITNESS_LOG_KEYS: logKey, WITNESS_NAME: 'a b' }, /WITNESS_NAME must not contain/);
    refused({ ROLES: 'witness', WITNESS_LOG_KEYS: logKey, WITNESS_SIGNING_KEY: 'short' }, /WITNESS_SIGNING_KEY/);
  });
});
