import type { Logger } from 'pino';

/**
 * A capture as a declared list of named steps run in order by one loop against one state (Scoop's pattern,
 * harvard-lil/scoop): the order of a capture reads in one screen, and every step is timed and logged by name.
 */
export interface Step<S> {
  name: string;
  /** Skipped (not run, timed or logged) unless this holds when the step's turn comes. */
  when?: (state: S) => boolean;
  /** Runs after an earlier step failed too: it releases what earlier steps took hold of. */
  alwaysRun?: boolean;
  run(state: S): Promise<void> | void;
}

/** Milliseconds each step that ran took, by name. */
export type StepTimings = Record<string, number>;

/**
 * Runs the steps in order. After a failure only `alwaysRun` steps run, then the first failure is thrown.
 * A synchronous step is not awaited: the loop adds no turn of the event loop to the capture's path.
 */
export async function runSteps<S>(
  steps: ReadonlyArray<Step<S>>,
  state: S,
  log?: Pick<Logger, 'debug'>,
): Promise<StepTimings> {
  const timings: StepTimings = {};
  let failure: { error: unknown } | undefined;
  for (const step of steps) {
    if (failure && !step.alwaysRun) continue;
    if (step.when && !step.when(state)) continue;
    const start = performance.now();
    try {
      const running = step.run(state);
      if (running) await running;
      timings[step.name] = Math.round(performance.now() - start);
      log?.debug({ step: step.name, ms: timings[step.name] }, 'capture step');
    } catch (error) {
      timings[step.name] = Math.round(performance.now() - start);
      log?.debug({ step: step.name, ms: timings[step.name], err: error }, 'capture step failed');
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
  return timings;
}
