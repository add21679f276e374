import { refusal } from '../domain/errors.js';
import type { BrowserState, OriginStorage, ProfileCookie } from './browser-state.js';

/**
 * A profile's contents as a tenant uploads them (docs/profiles.md, Uploading cookies), read into a BrowserState:
 *   - Playwright's `storageState` (an object with `cookies` and, optionally, `origins` with their localStorage);
 *   - an array of cookies as browser extensions export them (EditThisCookie, Cookie-Editor: `expirationDate`,
 *     `sameSite` `no_restriction`/`lax`/`strict`/`unspecified`, `hostOnly`, `session`);
 *   - a Netscape `cookies.txt` (a string: tab-separated lines, `#HttpOnly_` before an http-only cookie's domain).
 * Bounded: the request body limit (1 MiB) caps the input, the counts below cap the work; each is a 400 naming it.
 * A refusal names the field and what is wrong, never a value.
 */

export const PROFILE_LIMITS = {
  cookies: 3000,
  origins: 200,
  itemsPerOrigin: 1000,
  nameLength: 4096,
  /** A cookie's name and value together (RFC 6265's user-agent minimum is 4096; Chromium's limit). */
  cookieBytes: 4096,
  /** One localStorage value (Chromium keeps up to 5 MiB per origin; the sealed whole must fit one KV value). */
  valueLength: 256 * 1024,
  /** The whole state as JSON: it is sealed into one KV value. */
  stateBytes: 768 * 1024,
  lines: 20_000,
} as const;

const L = PROFILE_LIMITS;
const bad = (field: string, why: string) => refusal(400, `Invalid request: ${field}: ${why}`);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads an upload; a 400 naming `field` (e.g. `body.contents`) when it is none of the three shapes or breaks a bound. */
export function importBrowserState(raw: unknown, field = 'body.contents'): BrowserState {
  let state: BrowserState;
  if (typeof raw === 'string') state = { cookies: netscapeCookies(raw, field), origins: [] };
  else if (Array.isArray(raw)) state = { cookies: cookieList(raw, field), origins: [] };
  else if (isObject(raw)) state = storageState(raw, field);
  else throw bad(field, 'must be a storageState object, an array of cookies or the text of a cookies.txt');
  if (state.cookies.length === 0 && state.origins.length === 0) throw bad(field, 'holds no cookie and no storage');
  if (Buffer.byteLength(JSON.stringify(state)) > L.stateBytes) {
    throw bad(field, `is larger than ${L.stateBytes / 1024} KiB once read`);
  }
  return state;
}

/** Checks a BrowserState made elsewhere (the remote browser) against the same bounds. */
export const checkedBrowserState = (state: BrowserState): BrowserState => importBrowserState(state, 'state');

function storageState(raw: Record<string, unknown>, field: string): BrowserState {
  if (!Array.isArray(raw.cookies)) throw bad(`${field}.cookies`, 'must be an array of cookies');
  const origins = raw.origins ?? [];
  if (!Array.isArray(origins)) throw bad(`${field}.origins`, 'must be an array of {origin, localStorage}');
  if (origins.length > L.origins) throw bad(`${field}.origins`, `must hold at most ${L.origins} origins`);
  return {
    cookies: cookieList(raw.cookies, `${field}.cookies`),
    origins: origins.map((o, i) => originStorage(o, `${field}.origins[${i}]`)),
  };
}

function cookieList(raw: unknown[], field: string): ProfileCookie[] {
  if (raw.length > L.cookies) throw bad(field, `must hold at most ${L.cookies} cookies`);
  return raw.map((c, i) => cookieOf(c, `${field}[${i}]`));
}

const SAME_SITE: Record<string, ProfileCookie['sameSite']> = {
  strict: 'Strict',
  lax: 'Lax',
  none: 'None',
  no_restriction: 'None',
  // Chromium treats a cookie without SameSite as Lax.
  unspecified: 'Lax',
};

function cookieOf(raw: unknown, field: string): ProfileCookie {
  if (!isObject(raw)) throw bad(field, 'must be a cookie object');
  const name = raw.name;
  const value = raw.value;
  if (typeof name !== 'string' || name.length > L.nameLength) throw bad(`${field}.name`, 'must be a string');
  if (typeof value !== 'string') throw bad(`${field}.value`, 'must be a string');
  if (Buffer.byteLength(name) + Buffer.byteLength(value) > L.cookieBytes) {
    throw bad(field, `name and value together must be at most ${L.cookieBytes} bytes`);
  }
  const domain = domainOf(raw.domain, `${field}.domain`);
  const path = raw.path === undefined ? '/' : raw.path;
  if (typeof path !== 'string' || !path.startsWith('/') || path.length > 1024) {
    throw bad(`${field}.path`, "must be a path starting with '/'");
  }
  const expires = expiresOf(raw, field);
  const sameSiteRaw = raw.sameSite ?? 'unspecified';
  const sameSite = typeof sameSiteRaw === 'string' ? SAME_SITE[sameSiteRaw.toLowerCase()] : undefined;
  if (!sameSite) throw bad(`${field}.sameSite`, "must be 'Strict', 'Lax' or 'None'");
  // An extension's host-only cookie has no leading dot; a domain cookie has one (Playwright's convention too).
  const hostOnly = raw.hostOnly === true;
  return {
    name,
    value,
    domain: hostOnly ? domain.replace(/^\./, '') : domain,
    path,
    expires,
    httpOnly: raw.httpOnly === true,
    secure: raw.secure === true || sameSite === 'None',
    sameSite,
  };
}

function domainOf(raw: unknown, field: string): string {
  if (typeof raw !== 'string') throw bad(field, 'must be a host name');
  const host = raw.trim().toLowerCase();
  if (!/^\.?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host) || host.length > 253) {
    throw bad(field, 'must be a host name');
  }
  return host;
}

function expiresOf(raw: Record<string, unknown>, field: string): number {
  if (raw.session === true) return -1;
  const value = raw.expires ?? raw.expirationDate ?? -1;
  if (typeof value !== 'number' || !Number.isFinite(value) || (value < 0 && value !== -1)) {
    throw bad(`${field}.expires`, 'must be Unix seconds, or -1 for a session cookie');
  }
  return value === -1 ? -1 : Math.floor(value);
}

function originStorage(raw: unknown, field: string): OriginStorage {
  if (!isObject(raw)) throw bad(field, 'must be an object with origin and localStorage');
  let origin: string;
  try {
    const url = new URL(String(raw.origin));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
    origin = url.origin;
  } catch {
    throw bad(`${field}.origin`, 'must be an http(s) origin such as https://example.org');
  }
  const items = raw.localStorage ?? [];
  if (!Array.isArray(items)) throw bad(`${field}.localStorage`, 'must be an array of {name, value}');
  if (items.length > L.itemsPerOrigin) {
    throw bad(`${field}.localStorage`, `must hold at most ${L.itemsPerOrigin} items`);
  }
  return {
    origin,
    localStorage: items.map((item, i) => {
      const at = `${field}.localStorage[${i}]`;
      if (!isObject(item) || typeof item.name !== 'string' || typeof item.value !== 'string') {
        throw bad(at, 'must be {name, value} strings');
      }
      if (item.name.length > L.nameLength || item.value.length > L.valueLength) throw bad(at, 'is too long');
      return { name: item.name, value: item.value };
    }),
  };
}

/** Netscape cookies.txt: domain, include-subdomains flag, path, secure, expiry (0: session), name, value. */
function netscapeCookies(text: string, field: string): ProfileCookie[] {
  const lines = text.split(/\r?\n/, L.lines + 1);
  if (lines.length > L.lines) throw bad(field, `must have at most ${L.lines} lines`);
  const cookies: ProfileCookie[] = [];
  for (const [index, line] of lines.entries()) {
    const httpOnly = line.startsWith('#HttpOnly_');
    const body = httpOnly ? line.slice('#HttpOnly_'.length) : line;
    if (body.trim() === '' || body.startsWith('#')) continue;
    const at = `${field} line ${index + 1}`;
    const cols = body.split('\t');
    if (cols.length !== 7) throw bad(at, 'must have 7 tab-separated fields (a Netscape cookies.txt line)');
    const [domain, subdomains, path, secure, expiry, name, value] = cols as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    if (!/^(TRUE|FALSE)$/i.test(subdomains) || !/^(TRUE|FALSE)$/i.test(secure) || !/^\d{1,12}$/.test(expiry)) {
      throw bad(at, 'include-subdomains and secure must be TRUE or FALSE, the expiry Unix seconds');
    }
    if (cookies.length >= L.cookies) throw bad(field, `must hold at most ${L.cookies} cookies`);
    const host = domainOf(domain, `${at} domain`).replace(/^\./, '');
    cookies.push(
      cookieOf(
        {
          name,
          value,
          domain: subdomains.toUpperCase() === 'TRUE' ? `.${host}` : host,
          path,
          expires: Number(expiry) === 0 ? -1 : Number(expiry),
          httpOnly,
          secure: secure.toUpperCase() === 'TRUE',
          sameSite: 'unspecified',
        },
        at,
      ),
    );
  }
  return cookies;
}
