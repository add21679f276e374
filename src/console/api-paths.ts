/**
 * Paths of the API the console builds from ids, and the links in API answers it follows.
 */
export const capturePaths = {
  record: (id: string) => `/v1/captures/${encodeURIComponent(id)}`,
  status: (id: string) => `/v1/captures/${encodeURIComponent(id)}/status`,
  artifact: (id: string, name: string) => `/v1/captures/${encodeURIComponent(id)}/artifacts/${name}`,
  provenance: (id: string) => `/v1/captures/${encodeURIComponent(id)}/provenance`,
  certificate: (id: string) => `/v1/captures/${encodeURIComponent(id)}/certificate`,
  verify: (id: string) => `/v1/verify/${encodeURIComponent(id)}`,
};

/**
 * Links in API answers are absolute, built from PUBLIC_BASE_URL; the console follows them on its own origin (the
 * CSP allows only 'self', and the viewer may reach the service under another name than the configured one).
 */
export function sameOrigin(url: string): string {
  try {
    const u = new URL(url, location.origin);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}
