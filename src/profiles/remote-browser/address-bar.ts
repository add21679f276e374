/**
 * What the remote browser's address bar accepts: an http(s) URL, or a host name typed without a scheme (https is
 * assumed, as a browser's address bar does). Every other scheme — file:, chrome:, devtools:, javascript:, data: … —
 * is refused, so the person cannot reach the browser's own pages or the host's files through it. Where the URL may
 * connect is the egress proxy's decision, as for captures (DESIGN decision 6).
 */
export const MAX_ADDRESS_LENGTH = 2048;

export type AddressVerdict = { ok: true; url: string } | { ok: false; reason: string };

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export function browsableUrl(typed: string): AddressVerdict {
  const text = typed.trim();
  if (text === '') return { ok: false, reason: 'Type an address to open.' };
  if (text.length > MAX_ADDRESS_LENGTH)
    return { ok: false, reason: `An address is at most ${MAX_ADDRESS_LENGTH} characters.` };
  // "example.org:8080/x" parses as scheme "example.org:"; a scheme is only taken as one when "//" or a known one follows.
  const hasScheme = SCHEME.test(text) && (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || !/^[^:]+\.[^:]+:\d/.test(text));
  let url: URL;
  try {
    url = new URL(hasScheme ? text : `https://${text}`);
  } catch {
    return { ok: false, reason: 'That is not an address the browser can open.' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: `Only http and https pages open here, not ${url.protocol} ones.` };
  if (url.username || url.password)
    return { ok: false, reason: 'An address with a user name or password in it is not opened; sign in on the page.' };
  return { ok: true, url: url.href };
}

/** Whether a page the browser shows may stay: http(s), or the blank page it starts on. */
export const mayShow = (url: string): boolean => /^https?:/i.test(url) || url === 'about:blank';
