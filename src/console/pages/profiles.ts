import { get, query } from '../api.js';
import type { ProfileList } from '../api-answers.js';
import { h, put } from '../dom.js';
import { errorBox } from '../errors.js';
import type { PageContext } from '../router.js';
import { heading, table } from '../ui.js';

/**
 * Browser profiles (docs/profiles.md): the tenant's profiles from GET /v1/profiles, each with a Refresh that opens
 * the remote browser from its contents, and New profile, which opens a signed-out one. A profile is shown by its
 * name, version and sites, never its cookies.
 */
type ProfileRow = ProfileList['data'][number];

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
    const profiles = (await get<ProfileList>('/v1/profiles', ctx.signal)).data;
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
