/**
 * The run contract's variables, parsed without a schema library: every process parses its configuration before it
 * starts, so this is part of what each role costs to start (docs/performance.md, Role start). A field turns the raw
 * value (a string, or undefined when unset) into its setting, or reports why it cannot; parseEnv reads every field
 * and collects every complaint, in the order the fields are declared.
 */

/** Reports a problem with the value; the field's result is then ignored. */
export type Complain = (message: string) => void;

export type EnvField<T> = (raw: string | undefined, complain: Complain) => T;

export type EnvFields = Record<string, EnvField<unknown>>;

export type EnvOutput<F extends EnvFields> = { [K in keyof F]: F[K] extends EnvField<infer T> ? T : never };

export interface EnvIssue {
  name: string;
  message: string;
}

/** The variables' settings, or every complaint (each with the variable it is about). */
export function parseEnv<F extends EnvFields>(
  fields: F,
  env: Record<string, unknown>,
): { ok: true; data: EnvOutput<F> } | { ok: false; issues: EnvIssue[] } {
  const issues: EnvIssue[] = [];
  const data: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    const raw = env[name];
    if (raw !== undefined && typeof raw !== 'string') {
      issues.push({ name, message: `Invalid input: expected string, received ${typeof raw}` });
      continue;
    }
    data[name] = field(raw, (message) => issues.push({ name, message }));
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, data: data as EnvOutput<F> };
}

/** Trimmed; unset or blank → undefined. */
export const optionalString: EnvField<string | undefined> = (raw) =>
  raw === undefined || raw.trim() === '' ? undefined : raw.trim();

/** optionalString, then `check` on a set value; `message` when it fails. */
export const checked =
  (check: (value: string) => boolean, message: string): EnvField<string | undefined> =>
  (raw, complain) => {
    const value = optionalString(raw, complain);
    if (value !== undefined && !check(value)) complain(message);
    return value;
  };

/** optionalString, one of `values` when set. */
export const oneOf =
  <const V extends string>(values: readonly V[], message: string): EnvField<V | undefined> =>
  (raw, complain) => {
    const value = optionalString(raw, complain);
    if (value !== undefined && !(values as readonly string[]).includes(value)) complain(message);
    return value as V | undefined;
  };

/** optionalString → `to(value)`; `to` may complain. */
export const mapped =
  <T>(to: (value: string | undefined, complain: Complain) => T): EnvField<T> =>
  (raw, complain) =>
    to(optionalString(raw, complain), complain);
