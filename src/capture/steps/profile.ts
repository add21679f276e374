import type { Step } from '../capture-steps.js';
import { loadProfileIntoPage } from '../../profiles/profile-step.js';
import type { CaptureGiven } from './capture-given.js';

/**
 * A browser profile's cookies and localStorage into the fresh context, before navigation (docs/profiles.md).
 * load-profile sends them beside prepare's own protocol calls — a browser busy opening the next spare context
 * answers each round trip late, so one wait for both costs less than two in a row — and profile-loaded waits for
 * them before navigation; its time (render.stages.profileMs) is what the profile added to the capture's path.
 */
export interface ProfileLoading {
  loaded?: Promise<void>;
}

export const profileLoading = (): ProfileLoading => ({});

type Loading = { given: CaptureGiven; profile: ProfileLoading };

export const loadProfileStep: Step<Loading> = {
  name: 'load-profile',
  when: (s) => s.given.options.profile !== undefined,
  run(s) {
    const { options, session } = s.given;
    s.profile.loaded = options.profile!.then(({ state }) => loadProfileIntoPage(session, state));
    s.profile.loaded.catch(() => {}); // profile-loaded reports it; a capture that failed before then does not
  },
};

export const profileLoadedStep: Step<Loading> = {
  name: 'profile-loaded',
  when: (s) => s.profile.loaded !== undefined,
  run: (s) => s.given.bounds.service(s.profile.loaded!),
};
