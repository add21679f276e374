import type { Logger } from 'pino';

/**
 * What a process must undo when it stops, run in the reverse order of starting: stop accepting, drain, then
 * close connections. A failing stop is logged and the rest still run.
 */
export interface Stops {
  add(stop: () => Promise<void> | void): void;
  run(): Promise<void>;
}

export function createStops(log: Logger): Stops {
  const stops: Array<() => Promise<void> | void> = [];
  return {
    add: (stop) => void stops.unshift(stop),
    async run() {
      for (const stop of stops.splice(0)) {
        try {
          await stop();
        } catch (err) {
          log.warn({ err }, 'error while stopping');
        }
      }
    },
  };
}
