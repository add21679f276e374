import type { Step } from '../capture-steps.js';
import { loadProfileIntoPage } from '../../profiles/profile-step.js';
import type { CaptureGiven } from './capture-given.js';

/** A browser profile's cookies and localStorage into the fresh context, before navigation (docs/profiles.md). */
export const loadProfileStep: Step<{ given: CaptureGiven }> = {
  name: 'load-profile',
  when: (s) => s.given.options.profile !== undefined,
  run: (s) => s.given.bounds.service(loadProfileIntoPage(s.given.session, s.given.options.profile!)),
};
