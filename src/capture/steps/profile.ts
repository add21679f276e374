import type { Step } from '../capture-steps.js';
import { loadProfileIntoPage } from '../../profiles/profile-step.js';
import type { CaptureGiven } from './capture-given.js';

/**
 * A browser profile's cookies and localStorage into the fresh context, before navigation (docs/profiles.md). Its
 * time (render.stages.profileMs) counts what is left of opening the profile once the context is ready, and loading it.
 */
export const loadProfileStep: Step<{ given: CaptureGiven }> = {
  name: 'load-profile',
  when: (s) => s.given.options.profile !== undefined,
  run: (s) =>
    s.given.bounds.service(s.given.options.profile!.then(({ state }) => loadProfileIntoPage(s.given.session, state))),
};
