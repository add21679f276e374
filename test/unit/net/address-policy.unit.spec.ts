// Pure classification only: the public addresses below are never contacted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAddressPolicy, parseAllowCidrs } from '../../../src/net/address-policy.js';

const strict = createAddressPolicy({ allowCidrs: [] });

function refused(policy: ReturnType<typeof createAddressPolicy>, ip: string): string {
  const verdict = policy.check(ip);
  assert.equal(verdict.allowed, false, `${ip} should be refused`);
  return verdict.allowed ? '' : verdict.reason;
}

describe('address policy', () => {
  it('allows public unicast IPv4 and IPv6', () => {
    for (const ip of ['8.8.8.8', '93.184.216.34', '1.1.1.1', '2606:4700::1111', '2001:4860:4860::8888']) {
      assert.deepEqual(strict.check(ip), { allowed: true }, ip);
    }
  });

  it('refuses every non-public IPv4 class with a reason naming it', () => {
    const cases: Array<[string, RegExp]> = [
      ['127.0.0.1', /loopback/],
      ['127.255.255.254', /loopback/],
      ['10.1.2.3', /private/],
      ['172.16.0.1', /private/],
      ['192.168.1.1', /private/],
      ['0.0.0.0', /unspecified/],
      ['0.1.2.3', /unspecified/],
      ['100.64.0.1', /carrier-grade NAT/],
      ['169.254.169.254', /link-local/],
      ['224.0.0.1', /multicast/],
      ['255.255.255.255', /broadcast/],
      ['240.0.0.1', /reserved/],
      ['192.0.2.1', /reserved/],
      ['198.18.0.1', /special|reserved|benchmark/],
    ];
    for (const [ip, pattern] of cases) assert.match(refused(strict, ip), pattern, ip);
  });

  it('refuses every non-public IPv6 class', () => {
    const cases: Array<[string, RegExp]> = [
      ['::1', /loopback/],
      ['::', /unspecified/],
      ['fe80::1', /link-local/],
      ['fe80::1%eth0', /link-local/],
      ['fc00::1', /unique-local/],
      ['fd12:3456::1', /unique-local/],
      ['ff02::1', /multicast/],
      ['fec0::1', /site-local/],
      ['2001:db8::1', /reserved/],
      ['64:ff9b::7f00:1', /NAT64/],
      ['2002:7f00:1::1', /6to4/],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
      ['::7f00:1', /reserved/], // deprecated IPv4-compatible ::127.0.0.1
      ['100::1', /special/],
    ];
    for (const [ip, pattern] of cases) assert.match(refused(strict, ip), pattern, ip);
  });

  it('classifies IPv4-mapped IPv6 as the IPv4 address it carries', () => {
    assert.match(refused(strict, '::ffff:7f00:1'), /127\.0\.0\.1 is a loopback/);
    assert.match(refused(strict, '::ffff:127.0.0.1'), /loopback/);
    assert.match(refused(strict, '[::ffff:169.254.169.254]'), /link-local/);
    assert.match(refused(strict, '::ffff:10.0.0.1'), /private/);
    assert.deepEqual(strict.check('::ffff:8.8.8.8'), { allowed: true });
  });

  it('refuses what is not an IP address', () => {
    for (const value of ['', 'localhost', 'example.com', '1.2.3.4.5', '::g']) {
      assert.match(refused(strict, value), /not an IP address/, value);
    }
  });

  it('exempts allow-listed ranges, and only those', () => {
    const policy = createAddressPolicy({ allowCidrs: ['127.0.0.1/32', '10.0.0.0/8', 'fd00::/8'] });
    assert.deepEqual(policy.check('127.0.0.1'), { allowed: true });
    assert.deepEqual(policy.check('::ffff:127.0.0.1'), { allowed: true });
    assert.match(refused(policy, '127.0.0.2'), /loopback/);
    assert.match(refused(policy, '::1'), /loopback/);
    assert.deepEqual(policy.check('10.200.0.1'), { allowed: true });
    assert.match(refused(policy, '192.168.0.1'), /private/);
    assert.deepEqual(policy.check('fd00::5'), { allowed: true });
    assert.match(refused(policy, 'fc00::1'), /unique-local/);
    assert.deepEqual(policy.check('8.8.8.8'), { allowed: true });
  });

  it('accepts a bare address and IPv4-mapped CIDRs in the allow-list', () => {
    const policy = createAddressPolicy({ allowCidrs: ['::1', '::ffff:192.168.1.0/120'] });
    assert.deepEqual(policy.check('::1'), { allowed: true });
    assert.deepEqual(policy.check('192.168.1.77'), { allowed: true });
    assert.match(refused(policy, '192.168.2.1'), /private/);
  });

  it('throws on an invalid CIDR, naming the value', () => {
    for (const bad of ['10.0.0.0/33', 'not-a-cidr', '127.1/32', '10.0.0.0/', 'fe80::/129']) {
      assert.throws(
        () => createAddressPolicy({ allowCidrs: [bad] }),
        (err: Error) => err.message.includes(JSON.stringify(bad)),
        bad,
      );
    }
  });
});

describe('parseAllowCidrs (ALLOW_PRIVATE_TARGETS)', () => {
  it('splits, trims and drops empty entries', () => {
    assert.deepEqual(parseAllowCidrs(' 127.0.0.0/8, ::1/128 ,,'), ['127.0.0.0/8', '::1/128']);
    assert.deepEqual(parseAllowCidrs(''), []);
    assert.deepEqual(parseAllowCidrs(undefined), []);
  });

  it('throws naming the bad entry', () => {
    assert.throws(() => parseAllowCidrs('127.0.0.0/8,10.0.0.0/40'), /"10\.0\.0\.0\/40"/);
  });
});
