import { parseArgs } from 'node:util';
import { type CliIo, UsageError } from './cli-io.js';

/**
 * How a command declares itself: its words, options and positionals. Parsing (node:util parseArgs, strict),
 * `--help` and the usage line all come from this one declaration, so help never drifts from behaviour.
 */
export interface OptionSpec {
  type: 'string' | 'boolean';
  /** Name of the value shown in help and usage: `--tenant T`. */
  value?: string;
  help: string;
  required?: boolean;
  /** May repeat (`--tsa-ca a.pem --tsa-ca b.pem`). */
  multiple?: boolean;
  choices?: readonly string[];
  default?: string;
}

export interface PositionalSpec {
  name: string;
  help: string;
  required?: boolean;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export interface CommandSpec {
  /** The words after the program name, e.g. ['events', 'list']. */
  path: string[];
  summary: string;
  description?: string;
  positionals?: PositionalSpec[];
  options: Record<string, OptionSpec>;
  examples?: string[];
  run(args: ParsedArgs, io: CliIo): Promise<number>;
}

export const PROGRAM = 'capture-ledger';

export const commandName = (spec: CommandSpec): string => spec.path.join(' ');

export function usageLine(spec: CommandSpec): string {
  const parts = [PROGRAM, ...spec.path];
  for (const p of spec.positionals ?? []) parts.push(p.required ? p.name : `[${p.name}]`);
  for (const [name, o] of Object.entries(spec.options)) {
    const text = o.type === 'boolean' ? `--${name}` : `--${name} ${o.value ?? 'VALUE'}`;
    parts.push(o.required ? text : `[${text}]${o.multiple ? '...' : ''}`);
  }
  return `usage: ${parts.join(' ')}`;
}

export function helpText(spec: CommandSpec): string {
  const lines = [usageLine(spec), '', spec.summary];
  if (spec.description) lines.push('', spec.description.trim());
  const rows: Array<[string, string]> = [];
  for (const p of spec.positionals ?? []) rows.push([p.name, p.help]);
  for (const [name, o] of Object.entries(spec.options)) {
    const flag = o.type === 'boolean' ? `--${name}` : `--${name} ${o.value ?? 'VALUE'}`;
    const extra = [
      o.choices ? `one of: ${o.choices.join(', ')}` : '',
      o.default !== undefined ? `default: ${o.default}` : '',
      o.required ? 'required' : '',
    ]
      .filter(Boolean)
      .join('; ');
    rows.push([flag, extra ? `${o.help} (${extra})` : o.help]);
  }
  rows.push(['-h, --help', 'show this help']);
  const width = Math.max(...rows.map(([left]) => left.length));
  lines.push('', 'arguments and options:', ...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`));
  if (spec.examples?.length) lines.push('', 'examples:', ...spec.examples.map((e) => `  ${e}`));
  return `${lines.join('\n')}\n`;
}

/** Parse `argv` (the words after the command's path) against the spec; `null` means --help was asked. */
export function parseCommandArgs(spec: CommandSpec, argv: string[]): ParsedArgs | null {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, o] of Object.entries(spec.options))
    options[name] = { type: o.type, ...(o.multiple ? { multiple: true } : {}) };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (err) {
    if (String((err as { code?: string }).code ?? '').startsWith('ERR_PARSE_ARGS'))
      throw new UsageError((err as Error).message);
    throw err;
  }
  const values = parsed.values as ParsedArgs['values'];
  if (values.help) return null;
  for (const [name, o] of Object.entries(spec.options)) {
    const v = values[name];
    if (v === undefined && o.default !== undefined) values[name] = o.default;
    if (values[name] === undefined && o.required) throw new UsageError(`--${name} is required: ${o.help}`);
    if (o.choices && values[name] !== undefined) {
      for (const item of [values[name]].flat() as string[]) {
        if (!o.choices.includes(item))
          throw new UsageError(`--${name} must be one of ${o.choices.join(', ')}; got '${item}'`);
      }
    }
    if (o.type === 'string' && typeof values[name] === 'string' && (values[name] as string).trim() === '') {
      throw new UsageError(`--${name} needs a value: ${o.help}`);
    }
  }
  const declared = spec.positionals ?? [];
  const required = declared.filter((p) => p.required).length;
  if (parsed.positionals.length < required) {
    throw new UsageError(
      `missing ${declared
        .slice(parsed.positionals.length)
        .filter((p) => p.required)
        .map((p) => p.name)
        .join(', ')}`,
    );
  }
  if (parsed.positionals.length > declared.length) {
    throw new UsageError(`unexpected argument '${parsed.positionals[declared.length]}'`);
  }
  return { values, positionals: parsed.positionals };
}

export const stringOpt = (args: ParsedArgs, name: string): string | undefined => {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
};
export const flagOpt = (args: ParsedArgs, name: string): boolean => args.values[name] === true;
export const listOpt = (args: ParsedArgs, name: string): string[] => {
  const v = args.values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
};

/** A whole number option with bounds, or a UsageError naming the option. */
export function intOpt(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const v = stringOpt(args, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number; got '${v}'`);
  const n = Number(v);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}; got ${n}`);
  return n;
}
