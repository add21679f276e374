import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../../src/domain/errors.js';
import { importBrowserState, PROFILE_LIMITS } from '../../../src/profiles/profile-import.js';
import { siteOf, sitesOf } from '../../../src/profiles/profile-sites.js';

const SECRET = 'v-9f2c1e';

function refusedWith(fn: () => unknown, detail: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof DomainError);
    assert.equal(err.status, 400);
    assert.match(err.detail, detail);
    assert.ok(!err.detail.includes(SECRET), 'a refusal never shows a value');
    return true;
  });
}

describe('profile uploads', () => {
  it("reads Playwright's storageState, cookies with their attributes and each origin's localStorage", () => {
    const state = importBrowserState({
      cookies: [
        {
          name: 'sid',
          value: SECRET,
          domain: '.shop.example.co.uk',
          path: '/',
          expires: 4102444800.5,
          httpOnly: true,
          secure: true,
          sameSite: 'Strict',
        },
      ],
      origins: [{ origin: 'https://app.example.org/ignored', localStorage: [{ name: 'k', value: SECRET }] }],
    });
    assert.deepEqual(state.cookies[0], {
      name: 'sid',
      value: SECRET,
      domain: '.shop.example.co.uk',
      path: '/',
      expires: 4102444800,
      httpOnly: true,
      secure: true,
      sameSite: 'Strict',
    });
    assert.equal(state.origins[0]!.origin, 'https://app.example.org');
    assert.deepEqual(sitesOf(state), ['example.co.uk', 'example.org']);
  });

  it('reads the cookie arrays EditThisCookie and Cookie-Editor export', () => {
    const state = importBrowserState([
      {
        domain: 'www.example.org',
        expirationDate: 1900000000.25,
        hostOnly: true,
        httpOnly: false,
        name: 'a',
        path: '/',
        sameSite: 'no_restriction',
        secure: false,
        session: false,
        storeId: '0',
        value: SECRET,
      },
      {
        domain: '.example.org',
        hostOnly: false,
        name: 'b',
        path: '/',
        sameSite: 'unspecified',
        session: true,
        value: 'x',
      },
      { domain: 'example.org', name: 'c', path: '/', sameSite: null, value: 'y' },
    ]);
    assert.deepEqual(
      state.cookies.map((c) => [c.domain, c.expires, c.sameSite, c.secure]),
      [
        ['www.example.org', 1900000000, 'None', true],
        ['.example.org', -1, 'Lax', false],
        ['example.org', -1, 'Lax', false],
      ],
    );
  });

  it('reads a Netscape cookies.txt, #HttpOnly_ lines included', () => {
    const text = [
      '# Netscape HTTP Cookie File',
      '',
      `.example.org\tTRUE\t/\tTRUE\t1900000000\tsid\t${SECRET}`,
      '#HttpOnly_shop.example.net\tFALSE\t/cart\tFALSE\t0\tcart\t1',
    ].join('\r\n');
    const state = importBrowserState(text);
    assert.deepEqual(
      state.cookies.map((c) => [c.domain, c.path, c.secure, c.httpOnly, c.expires]),
      [
        ['.example.org', '/', true, false, 1900000000],
        ['shop.example.net', '/cart', false, true, -1],
      ],
    );
    assert.deepEqual(sitesOf(state), ['example.net', 'example.org']);
  });

  it('refuses what is none of the shapes, or breaks a bound, naming the field and never a value', () => {
    refusedWith(() => importBrowserState(42), /body\.contents: must be a storageState object/);
    refusedWith(() => importBrowserState({ cookies: [] }), /holds no cookie and no storage/);
    refusedWith(
      () => importBrowserState([{ name: 'a', value: SECRET, domain: 'bad domain' }]),
      /body\.contents\[0\]\.domain: must be a host name/,
    );
    refusedWith(
      () => importBrowserState([{ name: 'a', value: SECRET, domain: 'example.org', sameSite: 'sometimes' }]),
      /body\.contents\[0\]\.sameSite/,
    );
    refusedWith(() => importBrowserState(`example.org\tTRUE\t/\tTRUE\t0\tsid`), /line 1: must have 7 tab-separated/);
    const many = Array.from({ length: PROFILE_LIMITS.cookies + 1 }, () => ({
      name: 'a',
      value: 'b',
      domain: 'example.org',
    }));
    refusedWith(() => importBrowserState(many), /at most 3000 cookies/);
    refusedWith(
      () => importBrowserState([{ name: 'a', value: 'x'.repeat(PROFILE_LIMITS.cookieBytes), domain: 'example.org' }]),
      /at most 4096 bytes/,
    );
    refusedWith(
      () => importBrowserState({ cookies: [], origins: [{ origin: 'file:///etc', localStorage: [] }] }),
      /origins\[0\]\.origin/,
    );
  });

  it('names a site by its registrable domain, an address or localhost by itself', () => {
    assert.equal(siteOf('.a.b.example.co.uk'), 'example.co.uk');
    assert.equal(siteOf('127.0.0.1'), '127.0.0.1');
    assert.equal(siteOf('localhost'), 'localhost');
  });
});
