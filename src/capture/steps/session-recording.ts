import type { Step } from '../capture-steps.js';
import { type SessionRecorder, type SessionRecording, startSessionRecorder } from '../session-recorder.js';
import type { CaptureGiven } from './capture-given.js';
import type { Navigation } from './navigation.js';

/** settings.recordSession: what the browser showed from navigation to the screenshot (session-recorder.ts). */
export interface SessionRecordingSlice {
  recorder?: SessionRecorder;
  encoding?: Promise<SessionRecording>;
  recording?: SessionRecording;
}

export const sessionRecording = (): SessionRecordingSlice => ({});

type Recording = { given: CaptureGiven; recording: SessionRecordingSlice };

/** The session recording starts before navigation, so its first frame is the screen navigation started from. */
export const recordSessionStep: Step<Recording> = {
  name: 'record-session',
  when: (s) => s.given.settings.recordSession,
  async run(s) {
    s.recording.recorder = await s.given.bounds.service(
      startSessionRecorder(s.given.session, s.given.settings.viewport),
    );
  },
};

/** The recording ends where the screenshot begins; it is encoded while the HTML and the network are read. */
export const endRecordingStep: Step<Recording & { navigation: Readonly<Navigation> }> = {
  name: 'end-recording',
  when: (s) => s.recording.recorder !== undefined,
  run(s) {
    // Frames carry the wall clock: the span is anchored to it now, its length is render.durationMs's clock.
    const endEpochMs = Date.now();
    const startEpochMs = endEpochMs - (performance.now() - s.navigation.start);
    const encoding = s.recording.recorder!.finish({ startEpochMs, endEpochMs }, s.given.signal);
    encoding.catch(() => {}); // awaited by session-video
    s.recording.encoding = encoding;
  },
};

export const sessionVideoStep: Step<Recording> = {
  name: 'session-video',
  when: (s) => s.recording.encoding !== undefined,
  async run(s) {
    s.recording.recording = await s.recording.encoding!;
  },
};
