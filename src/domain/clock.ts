/** The one clock. Tests inject a fixed or stepping clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const fixedClock = (start: Date): Clock & { set(d: Date): void; advance(ms: number): void } => {
  let current = new Date(start);
  return {
    now: () => new Date(current),
    set: (d) => (current = new Date(d)),
    advance: (ms) => (current = new Date(current.getTime() + ms)),
  };
};

/** 'YYYY-MM' of a UTC instant: the billing period (spec 8.2). */
export const periodOf = (d: Date): string => d.toISOString().slice(0, 7);

/** First instant of the UTC month after `period`. */
export const periodEnd = (period: string): Date => {
  const [y, m] = period.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 1));
};

/** An instant as ISO 8601 text for an answer; absent stays absent (undefined, so the member is left out). */
export const iso = (d: Date | string | null | undefined): string | undefined =>
  d === null || d === undefined ? undefined : new Date(d).toISOString();
