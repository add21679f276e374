import type { BrowserState, OriginStorage, ProfileCookie } from '../browser-state.js';

/**
 * What the remote browser saves, in the shape of BrowserState: its cookies as the DevTools protocol lists them
 * (Storage.getCookies), with their attributes, and the localStorage of each origin the person visited.
 */

/** A cookie as the DevTools protocol lists it (Storage.getCookies, puppeteer's BrowserContext.cookies). */
export interface CdpCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires: number;
  httpOnly?: boolean;
  secure: boolean;
  session?: boolean;
  /** 'Default' (puppeteer's name for none set) and none at all are treated as Lax, as Chromium treats them. */
  sameSite?: 'Strict' | 'Lax' | 'None' | 'Default';
}

/** Most origins whose localStorage a profile keeps: the first ones visited. */
export const MAX_ORIGINS = 50;

export function profileCookie(c: CdpCookie): ProfileCookie {
  return {
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path,
    // Storage.getCookies gives -1 (and session: true) for a cookie that ends with the browser session.
    expires: c.session || c.expires < 0 ? -1 : c.expires,
    httpOnly: c.httpOnly ?? false,
    secure: c.secure,
    sameSite: c.sameSite === 'Strict' || c.sameSite === 'None' ? c.sameSite : 'Lax',
  };
}

export function browserStateOf(cookies: readonly CdpCookie[], origins: readonly OriginStorage[]): BrowserState {
  return {
    cookies: cookies.map(profileCookie),
    origins: origins.filter((o) => o.localStorage.length > 0),
  };
}

/** The origin of an http(s) URL, or null for any other page (about:blank, an error page). */
export function httpOrigin(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}
