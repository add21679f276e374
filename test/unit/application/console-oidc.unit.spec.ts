import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openFlow, sealFlow } from '../../../src/api/console-oidc-cookie.js';
import { bindingOf, OidcSignInRefused, principalOfOidcSession } from '../../../src/application/console-oidc.js';
import { causedBy } from '../../../src/application/caller.js';
import { ConfigError, loadConfig } from '../../../src/config/config.js';
import type { OidcProvider } from '../../../src/config/console-oidc-providers.js';

/** Console sign-in with OpenID Connect: the configuration, the claim mapping and the sealed flow cookie. */

const entry = {
  id: 'acme',
  label: 'Acme SSO',
  issuer: 'https://login.acme.example',
  clientId: 'capture-ledger',
  clientSecret: 'a-client-secret',
  claim: 'groups',
  mappings: [
    { value: 'legal', tenantId: 'acme-legal', scopes: ['capture'] },
    { value: 'staff', tenantId: 'acme', scopes: ['read'] },
  ],
};
const configWith = (providers: unknown) => loadConfig({ CONSOLE_OIDC_PROVIDERS: JSON.stringify(providers) });
const providerOf = (p: unknown = entry): OidcProvider => configWith([p]).CONSOLE_OIDC_PROVIDERS[0]!;

const configError = (providers: unknown): string => {
  try {
    configWith(providers);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.message;
  }
  assert.fail('expected a ConfigError');
};

describe('CONSOLE_OIDC_PROVIDERS', () => {
  it('is empty when unset and parses a provider with the default scope', () => {
    assert.deepEqual(loadConfig({}).CONSOLE_OIDC_PROVIDERS, []);
    const p = providerOf();
    assert.equal(p.scope, 'openid email profile');
    assert.equal(p.clientSecret, 'a-client-secret');
    assert.equal(p.mappings.length, 2);
  });

  it('names the bad field of a bad entry', () => {
    assert.throws(() => loadConfig({ CONSOLE_OIDC_PROVIDERS: '{' }), /CONSOLE_OIDC_PROVIDERS must be a JSON array/);
    assert.match(configError({ id: 'acme' }), /CONSOLE_OIDC_PROVIDERS: must be a JSON array of providers/);
    assert.match(
      configError([{ ...entry, issuer: 'http://login.acme.example' }]),
      /CONSOLE_OIDC_PROVIDERS\[0\]\.issuer: must be https/,
    );
    assert.match(
      configError([{ ...entry, mappings: [{ value: 'x', tenantId: 'acme', scopes: ['admin'] }] }]),
      /CONSOLE_OIDC_PROVIDERS\[0\]\.mappings\[0\]\.scopes\[0\]: must be 'capture' or 'read'/,
    );
    assert.match(
      configError([{ ...entry, clientSecret: undefined }]),
      /CONSOLE_OIDC_PROVIDERS\[0\]\.clientSecret: exactly one of clientSecret and clientSecretFile/,
    );
    assert.match(configError([entry, entry]), /CONSOLE_OIDC_PROVIDERS\[1\]\.id: 'acme' is used by another provider/);
    assert.match(
      configError([{ ...entry, clientSecret: undefined, clientSecretFile: '/nonexistent/secret' }]),
      /CONSOLE_OIDC_PROVIDERS\[0\]\.clientSecretFile: cannot read \/nonexistent\/secret/,
    );
    assert.match(configError([{ ...entry, extra: 1 }]), /CONSOLE_OIDC_PROVIDERS\[0\]/);
  });

  it('accepts plain http for a loopback issuer only', () => {
    assert.equal(providerOf({ ...entry, issuer: 'http://127.0.0.1:4000' }).issuer, 'http://127.0.0.1:4000');
  });
});

describe('claim mapping', () => {
  const p = providerOf();
  it('maps an array claim when any element matches; the first mapping wins', () => {
    const b = bindingOf(p, { subject: 'u1', claims: { groups: ['staff', 'legal'] } });
    assert.equal(b.tenantId, 'acme-legal');
    assert.deepEqual(b.scopes, ['capture']);
    assert.deepEqual(b.oidc.claimValues, ['staff', 'legal']);
    assert.equal(bindingOf(p, { subject: 'u2', claims: { groups: 'staff' } }).tenantId, 'acme');
  });

  it('refuses a claim that maps to nothing, and an unverified email', () => {
    assert.throws(
      () => bindingOf(p, { subject: 'u3', claims: { groups: ['other'] } }),
      (e: unknown) => e instanceof OidcSignInRefused && e.code === 'oidc_no_mapping',
    );
    const byEmail = providerOf({
      ...entry,
      claim: 'email',
      mappings: [{ value: 'a@acme.example', tenantId: 'acme', scopes: ['read'] }],
    });
    assert.throws(() => bindingOf(byEmail, { subject: 'u4', claims: { email: 'a@acme.example' } }), OidcSignInRefused);
    assert.equal(
      bindingOf(byEmail, { subject: 'u4', claims: { email: 'a@acme.example', email_verified: true } }).tenantId,
      'acme',
    );
  });

  it('re-maps a session under the current configuration, with keyHash null and an oidc causer', () => {
    const binding = bindingOf(p, { subject: 'u1', claims: { groups: ['legal'] } });
    const principal = principalOfOidcSession([p], binding);
    assert.deepEqual(principal, {
      tenantId: 'acme-legal',
      scopes: ['capture'],
      keyHash: null,
      oidc: { provider: 'acme', subject: 'u1' },
    });
    const caller = { principal: principal!, correlationId: 'req-1', log: console };
    assert.deepEqual(causedBy(caller).causedBy, { kind: 'oidc', provider: 'acme', subject: 'u1' });
    // Scopes follow the configuration; a removed mapping, provider or changed issuer ends the session.
    const readOnly = { ...p, mappings: [{ value: 'legal', tenantId: 'acme-legal', scopes: ['read' as const] }] };
    assert.deepEqual(principalOfOidcSession([readOnly], binding)?.scopes, ['read']);
    assert.equal(principalOfOidcSession([{ ...p, mappings: p.mappings.slice(1) }], binding), null);
    assert.equal(principalOfOidcSession([], binding), null);
    assert.equal(principalOfOidcSession([{ ...p, issuer: 'https://elsewhere.example' }], binding), null);
    const moved = { ...p, mappings: [{ value: 'legal', tenantId: 'other', scopes: ['read' as const] }] };
    assert.equal(principalOfOidcSession([moved], binding), null);
  });
});

describe('the flow cookie', () => {
  const p = providerOf();
  const checks = { state: 'st', nonce: 'no', codeVerifier: 'ver' };
  it('opens what it sealed, for 10 minutes, for the same provider only', () => {
    const sealed = sealFlow(p, checks, 1_000);
    assert.ok(!sealed.includes('ver') && !Buffer.from(sealed, 'base64url').toString().includes('"v"'));
    assert.deepEqual(openFlow(p, sealed, 1_000 + 599_000), { checks });
    assert.deepEqual(openFlow(p, sealed, 1_000 + 600_000), { refused: 'flow cookie expired' });
    assert.ok('refused' in openFlow({ ...p, id: 'other' }, sealed, 1_000));
    assert.ok('refused' in openFlow({ ...p, clientSecret: 'another' }, sealed, 1_000));
    const raw = Buffer.from(sealed, 'base64url');
    raw[20]! ^= 1;
    assert.ok('refused' in openFlow(p, raw.toString('base64url'), 1_000));
    assert.ok('refused' in openFlow(p, undefined, 1_000));
    assert.ok('refused' in openFlow(p, 'garbage', 1_000));
  });
});
