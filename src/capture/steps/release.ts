import type { Step } from '../capture-steps.js';
import type { CaptureGiven } from './capture-given.js';
import type { Consent } from './consent.js';
import type { PageWatch } from './page-watch.js';
import type { SessionRecordingSlice } from './session-recording.js';

/** Whatever happened: stop the watchers the capture started in the page (the context itself is closed by capturePage). */
export const releaseStep: Step<{
  given: CaptureGiven;
  watch: Readonly<PageWatch>;
  consent: Readonly<Consent>;
  recording: Readonly<SessionRecordingSlice>;
}> = {
  name: 'release',
  alwaysRun: true,
  run({ given, watch, consent, recording }) {
    watch.activity?.stop();
    watch.stopFollowingFrames?.();
    given.recorder.dispose();
    void watch.timers?.dispose();
    void consent.looks?.dispose();
    void watch.consentPreload?.dispose();
    void recording.recorder?.dispose();
  },
};
