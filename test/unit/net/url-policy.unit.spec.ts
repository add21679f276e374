import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAddressPolicy } from '../../../src/net/address-policy.js';
import {
  checkTargetUrl,
  urlRejectionStatus,
  type UrlCheckDeps,
  type UrlRejectionReason,
} from '../../../src/net/url-policy.js';

const policy = createAddressPolicy({ allowCidrs: [] });

/** Every test passes its own resolver: no test may reach the system resolver (and so the network). */
function stubResolver(table: Record<string, string[]>): {
  resolve: NonNullable<UrlCheckDeps['resolve']>;
  asked: string[];
} {
  const asked: string[] = [];
  return {
    asked,
    resolve: async (host) => {
      asked.push(host);
      const answer = table[host];
      if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return answer;
    },
  };
}

const publicDns = stubResolver({ 'example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
const deps: UrlCheckDeps = { policy, resolve: publicDns.resolve };

async function rejected(raw: unknown, reason: UrlRejectionReason, d: UrlCheckDeps = deps): Promise<string> {
  const result = await checkTargetUrl(raw, d);
  assert.equal(result.ok, false, `${String(raw)} should be rejected`);
  if (result.ok) return '';
  assert.equal(result.reason, reason, `${String(raw)}: ${result.detail}`);
  assert.ok(result.detail.length > 10);
  return result.detail;
}

describe('checkTargetUrl', () => {
  it('accepts a public URL and returns the normalised href', async () => {
    assert.deepEqual(await checkTargetUrl('https://Example.COM', deps), { ok: true, url: 'https://example.com/' });
    assert.deepEqual(await checkTargetUrl('  http://example.com/a b?q=1#f ', deps), {
      ok: true,
      url: 'http://example.com/a%20b?q=1#f',
    });
    assert.deepEqual(await checkTargetUrl('https://93.184.216.34:8443/x', deps), {
      ok: true,
      url: 'https://93.184.216.34:8443/x',
    });
  });

  it('missing: absent, null, empty or blank', async () => {
    for (const raw of [undefined, null, '', '   ']) await rejected(raw, 'missing');
  });

  it('malformed: not a string, not absolute, unparseable, control characters', async () => {
    for (const raw of [
      42,
      {},
      ['https://example.com'],
      'example.com/page',
      '//example.com',
      'http://',
      'https://exa mple.com/',
      'http://[::1/',
      'https://example.com/\nx',
    ]) {
      await rejected(raw, 'malformed');
    }
    assert.match(await rejected('example.com', 'malformed'), /scheme missing/);
  });

  it('scheme: anything but http and https', async () => {
    for (const raw of [
      'ftp://example.com/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,hi',
      'gopher://example.com',
      'ws://example.com/',
    ]) {
      await rejected(raw, 'scheme');
    }
  });

  it('credentials: user name and/or password', async () => {
    for (const raw of ['https://user:pass@example.com/', 'https://user@example.com/', 'http://:secret@example.com/']) {
      assert.match(await rejected(raw, 'credentials'), /user name or password/);
    }
  });

  it('double_encoded: %25XX anywhere, or an escape that survives one decoding', async () => {
    for (const raw of [
      'https://example.com/%252e%252e/etc',
      'https://example.com/?next=%2541',
      'https://example.com/%%34%31',
      'https://example.com/a%2F%252F',
    ]) {
      await rejected(raw, 'double_encoded');
    }
    // Single encoding is fine.
    assert.equal((await checkTargetUrl('https://example.com/a%20b/%2F?q=100%25', deps)).ok, true);
  });

  it('too_long: over 2048 characters', async () => {
    const base = 'https://example.com/';
    assert.equal((await checkTargetUrl(base + 'a'.repeat(2048 - base.length), deps)).ok, true);
    assert.match(await rejected(base + 'a'.repeat(2049 - base.length), 'too_long'), /2048/);
    // Grows past the limit when normalised (each space becomes %20).
    await rejected(base + ' x'.repeat(1000), 'too_long');
  });

  it('private_address: literal IPv4 in every numeric spelling, checked after normalisation', async () => {
    for (const raw of [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://0x7f000001/',
      'http://127.1/',
      'http://%31%32%37.0.0.1/',
      'http://0.0.0.0/',
      'http://0/',
      'http://100.64.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1:8080/',
      'http://192.168.0.1./',
    ]) {
      assert.match(await rejected(raw, 'private_address'), /public internet address/, raw);
    }
  });

  it('private_address: literal IPv6, including IPv4-mapped forms', async () => {
    for (const raw of [
      'http://[::1]/',
      'http://[::]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[fe80::1]/',
      'http://[fc00::1]/',
      'http://[::ffff:a9fe:a9fe]/',
    ]) {
      await rejected(raw, 'private_address');
    }
  });

  it('private_address: localhost names, without asking DNS', async () => {
    const dns = stubResolver({});
    for (const raw of ['http://localhost/', 'http://LOCALHOST:3000/', 'http://localhost./', 'http://app.localhost/']) {
      assert.match(await rejected(raw, 'private_address', { policy, resolve: dns.resolve }), /local machine/);
    }
    assert.deepEqual(dns.asked, []);
  });

  it('private_address: a host name any of whose addresses is not public', async () => {
    const dns = stubResolver({
      'internal.example': ['10.0.0.5'],
      'mixed.example': ['93.184.216.34', '127.0.0.1'],
      'v6.example': ['2606:4700::1111', 'fd00::1'],
      'mapped.example': ['::ffff:169.254.169.254'],
    });
    const d = { policy, resolve: dns.resolve };
    // The refusal names the host, never what it resolves to (no DNS oracle); the log detail has the address.
    for (const url of [
      'https://internal.example/',
      'https://mixed.example/',
      'https://v6.example/',
      'https://mapped.example/',
    ]) {
      const detail = await rejected(url, 'private_address', d);
      assert.match(detail, /resolves to an address that is not allowed/);
      assert.doesNotMatch(detail, /10\.0\.0\.5|127\.0\.0\.1|fd00|169\.254|private|loopback|link-local|unique/i);
    }
    const told: string[] = [];
    await checkTargetUrl('https://internal.example/', { ...d, onRefusedAddress: (why) => told.push(why) });
    assert.equal(told.length, 1);
    assert.match(told[0] ?? '', /^internal\.example resolves to 10\.0\.0\.5 \(/);
    await rejected('https://v6.example/', 'private_address', d);
    await rejected('https://mapped.example/', 'private_address', d);
  });

  it('accepts a host name that cannot be resolved or times out (the egress proxy checks again)', async () => {
    const dns = stubResolver({});
    assert.deepEqual(await checkTargetUrl('https://nowhere.example/x', { policy, resolve: dns.resolve }), {
      ok: true,
      url: 'https://nowhere.example/x',
    });
    assert.deepEqual(dns.asked, ['nowhere.example']);
    const hanging = { policy, resolve: () => new Promise<string[]>(() => undefined), resolveTimeoutMs: 50 };
    const started = Date.now();
    assert.equal((await checkTargetUrl('https://slow.example/', hanging)).ok, true);
    assert.ok(Date.now() - started < 10_000, 'ended by the 50 ms resolve timeout, not by the hanging resolver');
    assert.equal((await checkTargetUrl('https://empty.example/', { policy, resolve: async () => [] })).ok, true);
  });

  it('honours the allow-list for literal and resolved addresses', async () => {
    const allowLoopback = createAddressPolicy({ allowCidrs: ['127.0.0.1/32'] });
    const dns = stubResolver({ 'fixture.test': ['127.0.0.1'], 'other.test': ['127.0.0.2'] });
    const d = { policy: allowLoopback, resolve: dns.resolve };
    assert.equal((await checkTargetUrl('http://127.0.0.1:8080/', d)).ok, true);
    assert.equal((await checkTargetUrl('http://fixture.test:8080/', d)).ok, true);
    await rejected('http://127.0.0.2:8080/', 'private_address', d);
    await rejected('http://other.test/', 'private_address', d);
    // localhost is this machine: allowed when one of its loopback addresses is, and pinned to that one.
    assert.equal((await checkTargetUrl('http://localhost:8080/', d)).ok, true);
    await rejected('http://localhost/', 'private_address', {
      policy: createAddressPolicy({ allowCidrs: ['127.0.0.2/32'] }),
      resolve: dns.resolve,
    });
  });
});

describe('urlRejectionStatus (spec 7.2)', () => {
  it('maps reasons for single submissions and batch items', () => {
    const single: Record<UrlRejectionReason, number> = {
      missing: 400,
      malformed: 400,
      scheme: 400,
      credentials: 422,
      double_encoded: 422,
      private_address: 422,
      too_long: 422,
    };
    for (const [reason, status] of Object.entries(single) as Array<[UrlRejectionReason, number]>) {
      assert.equal(urlRejectionStatus(reason, { batchItem: false }), status, reason);
      assert.equal(
        urlRejectionStatus(reason, { batchItem: true }),
        reason === 'scheme' ? 422 : status,
        `batch ${reason}`,
      );
    }
    assert.equal(urlRejectionStatus('scheme'), 400);
  });
});
