import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { BrowserState } from '../../../src/profiles/browser-state.js';
import { generateProfileKeyEntry, loadProfileKeyRing, parseProfileKeyRing } from '../../../src/profiles/profile-key.js';
import { openProfileVault, sealedDigest } from '../../../src/profiles/profile-vault.js';
import { startNatsOnly } from '../../support/harness.js';

/**
 * The profile vault against a real nats-server: contents sealed per tenant, bound to tenant, profile and version,
 * opened again after a PROFILE_KEY rotation and re-wrapped, and gone for good once shredded.
 */

const SECRET = 'cookie-value-4e1d8a7c';
const state: BrowserState = {
  cookies: [
    {
      name: 'sid',
      value: SECRET,
      domain: 'example.org',
      path: '/',
      expires: -1,
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
    },
  ],
  origins: [{ origin: 'https://example.org', localStorage: [{ name: 'k', value: SECRET }] }],
};
const facts = { name: 'Shop', version: 1, sites: ['example.org'], cookieCount: 1, originCount: 1 };
const P = `prf_${'b'.repeat(32)}`;
const FIRST_ENTRY = generateProfileKeyEntry();

async function bytesUnder(dir: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await bytesUnder(path)));
    else if (e.isFile()) out.push(await readFile(path));
  }
  return out;
}

describe('profile vault', () => {
  let env: Awaited<ReturnType<typeof startNatsOnly>>;
  let nc: NatsConnection;

  before(async () => {
    env = await startNatsOnly();
    nc = await connect({ servers: env.nats.url });
  });
  after(async () => {
    await nc?.close();
    await env?.stop();
  });

  it('seals contents so they open only as what they were sealed for, and keeps no value in clear', async () => {
    const vault = await openProfileVault(nc, parseProfileKeyRing(FIRST_ENTRY));
    const { digest } = await vault.put('acme', P, facts, state);
    const opened = await vault.open('acme', P);
    assert.deepEqual(opened, { ...facts, digest, state });
    assert.match(digest, /^sha256:[0-9a-f]{64}$/);
    assert.equal(await vault.open('other', P), null, "another tenant's key finds no contents");

    // The stored entry, moved under another tenant or version, does not open: the AAD binds them.
    const kv = await new Kvm(nc).open('profile-contents');
    const stored = (await kv.get(`acme.${P}`))!.json<{ sealed: string; version: number }>();
    assert.equal(sealedDigest(stored.sealed), digest);
    await kv.put(`acme.${P}`, JSON.stringify({ ...stored, ...facts, version: 2 }));
    await assert.rejects(vault.open('acme', P), /unable to authenticate|auth/i);
    await vault.put('acme', P, facts, state);

    for (const bytes of await bytesUnder(env.dir)) assert.equal(bytes.indexOf(SECRET), -1);
  });

  it('opens data keys wrapped before a rotation and re-wraps them under the new key', async () => {
    const oldEntry = generateProfileKeyEntry();
    const before = await openProfileVault(nc, parseProfileKeyRing(oldEntry));
    await before.put('rotated', P, facts, state);
    const newEntry = generateProfileKeyEntry();
    const ring = parseProfileKeyRing(`${newEntry},${oldEntry},${FIRST_ENTRY}`);
    const after = await openProfileVault(nc, ring);
    assert.deepEqual((await after.open('rotated', P))?.state, state);
    const keys = await new Kvm(nc).open('profile-keys');
    assert.equal((await keys.get('rotated'))!.json<{ keyId: string }>().keyId, ring.current.id, 're-wrapped on use');
    assert.equal(await after.rewrapAll(), 1, "the first test's tenant, still under its own old key");
    assert.equal(await after.rewrapAll(), 0);
    // Only the new key now: everything still opens.
    const onlyNew = await openProfileVault(nc, parseProfileKeyRing(newEntry));
    assert.deepEqual((await onlyNew.open('rotated', P))?.state, state);
  });

  it('drops the contents of a shredded profile for good', async () => {
    const vault = await openProfileVault(nc, parseProfileKeyRing(FIRST_ENTRY));
    await vault.put('shred', P, facts, state);
    await vault.shred('shred', P);
    assert.equal(await vault.open('shred', P), null);
    const kv = await new Kvm(nc).open('profile-contents');
    assert.equal((await kv.get(`shred.${P}`))?.operation, 'DEL');
  });

  it('generates PROFILE_KEY once into DATA_DIR when unset, mode 0600', async () => {
    const first = await loadProfileKeyRing({ DATA_DIR: env.dir });
    const again = await loadProfileKeyRing({ DATA_DIR: env.dir });
    assert.equal(first.current.id, again.current.id);
    assert.throws(() => parseProfileKeyRing('nokey'), /PROFILE_KEY must be/);
  });
});
