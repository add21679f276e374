/**
 * Vantage points (docs/evidence.md, Vantage points): named places a capture can be made from. Each
 * is an upstream proxy the worker's egress proxy chains through — HTTP CONNECT (`http://host:port`) or SOCKS5
 * (`socks5://host:port`), credentials in the URL's user info — with where it is (label, country or region)
 * and, optionally, the address it is expected to exit from and a URL that echoes the caller's address, asked
 * through the vantage before each capture to observe the exit actually used.
 *
 * Configured as VANTAGES, a JSON array. Pure: parsed and validated here, once at start.
 */
import { isIP } from 'node:net';

export interface Vantage {
  /** What a capture names in `options.vantage`: lower-case letters, digits and dashes. */
  id: string;
  label: string;
  /** ISO 3166-1 alpha-2 country, optionally with an ISO 3166-2 subdivision: `DE`, `US-CA`. */
  region: string;
  /** The upstream proxy; holds credentials, so never shown. */
  upstream: URL;
  /** The address the vantage should exit from; a capture whose observed exit differs fails as vantage_unavailable. */
  expectedExit?: string;
  /** An http(s) URL answering with the caller's IP address (text, or JSON with `ip`/`address`/`origin`). */
  exitProbeUrl?: string;
}

/** A vantage as GET /v1/vantages shows it: no upstream address, no credentials. */
export interface VantageView {
  id: string;
  label: string;
  region: string;
  upstreamKind: 'http-connect' | 'socks5';
  expectedExit: string | null;
  exitObserved: boolean;
}

export const viewOfVantage = (v: Vantage): VantageView => ({
  id: v.id,
  label: v.label,
  region: v.region,
  upstreamKind: v.upstream.protocol === 'socks5:' ? 'socks5' : 'http-connect',
  expectedExit: v.expectedExit ?? null,
  exitObserved: v.exitProbeUrl !== undefined,
});

const ID = /^[a-z0-9][a-z0-9-]{0,39}$/;
const REGION = /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/;
const KNOWN_FIELDS = new Set(['id', 'label', 'region', 'upstream', 'expectedExit', 'exitProbeUrl']);

/** Parses VANTAGES; unset or empty means no vantages. Every problem is named (`VANTAGES[1].upstream: …`). */
export function parseVantages(raw: string | undefined): { vantages: Vantage[] } | { errors: string[] } {
  if (raw === undefined || raw.trim() === '') return { vantages: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    return { errors: [`VANTAGES must be a JSON array: ${(err as Error).message}`] };
  }
  if (!Array.isArray(parsed)) return { errors: ['VANTAGES must be a JSON array of vantage objects'] };
  const errors: string[] = [];
  const vantages: Vantage[] = [];
  const ids = new Set<string>();
  for (const [i, item] of parsed.entries()) {
    const at = `VANTAGES[${i}]`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      errors.push(`${at} must be an object`);
      continue;
    }
    const v = item as Record<string, unknown>;
    const unknown = Object.keys(v).filter((k) => !KNOWN_FIELDS.has(k));
    if (unknown.length > 0)
      errors.push(`${at}.${unknown[0]} is not a vantage field (known: ${[...KNOWN_FIELDS].join(', ')})`);
    const before = errors.length;
    if (typeof v['id'] !== 'string' || !ID.test(v['id']))
      errors.push(`${at}.id must be lower-case letters, digits and dashes (at most 40)`);
    else if (ids.has(v['id'])) errors.push(`${at}.id ${v['id']} is given twice`);
    if (typeof v['label'] !== 'string' || v['label'].trim() === '' || v['label'].length > 200)
      errors.push(`${at}.label must be a non-empty string of at most 200 characters`);
    if (typeof v['region'] !== 'string' || !REGION.test(v['region']))
      errors.push(`${at}.region must be an ISO 3166 country or subdivision code such as DE or US-CA`);
    const upstream = parseUpstream(v['upstream']);
    if (typeof upstream === 'string') errors.push(`${at}.upstream ${upstream}`);
    if (v['expectedExit'] !== undefined && (typeof v['expectedExit'] !== 'string' || isIP(v['expectedExit']) === 0))
      errors.push(`${at}.expectedExit must be an IP address`);
    if (v['exitProbeUrl'] !== undefined && !isHttpUrl(v['exitProbeUrl']))
      errors.push(`${at}.exitProbeUrl must be an http or https URL`);
    if (errors.length > before || typeof upstream === 'string') continue;
    ids.add(v['id'] as string);
    vantages.push({
      id: v['id'] as string,
      label: (v['label'] as string).trim(),
      region: v['region'] as string,
      upstream,
      ...(v['expectedExit'] !== undefined ? { expectedExit: v['expectedExit'] as string } : {}),
      ...(v['exitProbeUrl'] !== undefined ? { exitProbeUrl: v['exitProbeUrl'] as string } : {}),
    });
  }
  return errors.length > 0 ? { errors } : { vantages };
}

function parseUpstream(value: unknown): URL | string {
  if (typeof value !== 'string' || !URL.canParse(value))
    return 'must be a proxy URL such as http://host:3128 or socks5://host:1080';
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'socks5:') return 'must use http: (CONNECT) or socks5:';
  if (!url.port || (url.pathname !== '' && url.pathname !== '/') || url.search || url.hash)
    return 'must be scheme://host:port (with optional user:password@), nothing more';
  return url;
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const p = new URL(value).protocol;
  return p === 'http:' || p === 'https:';
}
