import { get, query } from '../api.js';
import { h, put } from '../dom.js';
import { errorBox } from '../errors.js';
import type { PageContext } from '../router.js';
import { heading, table } from '../ui.js';

/**
 * Browser profiles (docs/profiles.md): the tenant's profiles from GET /v1/profiles, each with a Refresh that opens
 * the remote browser from its contents, and New profile, which opens a signed-out one. A profile is shown by its
 * name, version and sites, never its cookies.
 */
export interface ProfileRow {
  id: string;
  name: string;
  version: number;
  sites: string[];
}

/** The rows of GET /v1/profiles ({data: [...]}), keeping only what this page shows. */
export function parseProfiles(body: unknown): ProfileRow[] {
  const list = Array.isArray(body) ? body : (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(list)) throw new Error('GET /v1/profiles did not answer a list of profiles');
  return list
    .filter((p): p is ProfileRow => typeof p?.id === 'string' && typeof p?.name === 'string')
    .map((p) => ({
      id: p.id,
      name: p.name,
      version: Number(p.version) || 1,
      sites: Array.isArray(p.sites) ? p.sites.map(String) : [],
    }));
}

export const remoteBrowserPath = (profile?: ProfileRow) =>
  `/console/profiles/browser${profile ? query({ profile: profile.id, name: profile.name }) : ''}`;

export async function profilesPage(ctx: PageContext): Promise<void> {
  const list = h(
    'section',
    { 'aria-labelledby': 'profiles-heading' },
    h('h2', { id: 'profiles-heading' }, 'Your profiles'),
  );
  put(
    ctx.main,
    heading('Profiles'),
    h(
      'p',
      null,
      'A profile is a signed-in browser state that captures can use. Make one by signing in to the sites you need in a remote browser of the service; it is a credential, so treat it like a password.',
    ),
    h('p', { class: 'actions' }, h('a', { class: 'button-link primary', href: remoteBrowserPath() }, 'New profile')),
    list,
  );
  try {
    const profiles = parseProfiles(await get<unknown>('/v1/profiles', ctx.signal));
    put(
      list,
      h('h2', { id: 'profiles-heading' }, 'Your profiles'),
      profiles.length
        ? table(
            'Profiles',
            ['Name', 'Version', 'Sites', ''],
            profiles.map((p) => [
              p.name,
              p.version,
              p.sites.join(', ') || '—',
              h(
                'a',
                { href: remoteBrowserPath(p), 'aria-label': `Refresh "${p.name}" in a remote browser` },
                'Refresh',
              ),
            ]),
          )
        : h('p', null, 'No profiles yet.'),
    );
  } catch (err) {
    if ((err as Error).name === 'AbortError') return;
    put(list, h('h2', { id: 'profiles-heading' }, 'Your profiles'), errorBox(err));
  }
}
