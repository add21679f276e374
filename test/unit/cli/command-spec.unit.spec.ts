import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/cli/cli-io.js';
import {
  type CommandSpec,
  helpText,
  intOpt,
  listOpt,
  parseCommandArgs,
  stringOpt,
  usageLine,
} from '../../../src/cli/command-spec.js';

const spec: CommandSpec = {
  path: ['things', 'do'],
  summary: 'Do things.',
  positionals: [{ name: 'FILE', help: 'a file', required: true }],
  options: {
    tenant: { type: 'string', value: 'T', help: 'the tenant', required: true },
    format: { type: 'string', value: 'FORMAT', help: 'output', choices: ['csv', 'json'], default: 'csv' },
    ca: { type: 'string', value: 'PEM', help: 'a CA', multiple: true },
    all: { type: 'boolean', help: 'everything' },
    limit: { type: 'string', value: 'N', help: 'at most N' },
  },
  examples: ['capture-ledger things do x --tenant a'],
  run: async () => 0,
};

const parse = (argv: string[]) => parseCommandArgs(spec, argv);

describe('command argument parsing', () => {
  it('parses options, defaults, repeats and positionals', () => {
    const a = parse(['f.txt', '--tenant', 'acme', '--ca', 'a.pem', '--ca=b.pem', '--all'])!;
    assert.deepEqual(a.positionals, ['f.txt']);
    assert.equal(stringOpt(a, 'tenant'), 'acme');
    assert.equal(stringOpt(a, 'format'), 'csv');
    assert.deepEqual(listOpt(a, 'ca'), ['a.pem', 'b.pem']);
    assert.equal(a.values.all, true);
    assert.equal(intOpt(a, 'limit', 1, 10), undefined);
  });

  it('returns null for --help and -h, even with other errors present', () => {
    assert.equal(parse(['--help']), null);
    assert.equal(parse(['-h']), null);
  });

  it('refuses what is wrong with a UsageError naming the option', () => {
    const cases: Array<[string[], RegExp]> = [
      [['f', '--tenant', 'a', '--nope'], /Unknown option '--nope'/],
      [['f'], /--tenant is required: the tenant/],
      [['f', '--tenant'], /argument missing/],
      [['f', '--tenant', ''], /--tenant needs a value/],
      [['f', '--tenant', 'a', '--format', 'xml'], /--format must be one of csv, json; got 'xml'/],
      [['--tenant', 'a'], /missing FILE/],
      [['f', 'g', '--tenant', 'a'], /unexpected argument 'g'/],
      [['f', '--tenant', 'a', '--all=yes'], /does not take an argument/],
    ];
    for (const [argv, message] of cases)
      assert.throws(
        () => parse(argv),
        (err: Error) => err instanceof UsageError && message.test(err.message),
        argv.join(' '),
      );
  });

  it('checks whole-number options', () => {
    const a = (v: string) => parse(['f', '--tenant', 'a', '--limit', v])!;
    assert.equal(intOpt(a('5'), 'limit', 1, 10), 5);
    assert.throws(() => intOpt(a('0'), 'limit', 1, 10), /--limit must be between 1 and 10; got 0/);
    assert.throws(() => intOpt(a('2.5'), 'limit', 1, 10), /--limit must be a whole number; got '2.5'/);
  });

  it('renders the usage line and help from the declaration', () => {
    assert.equal(
      usageLine(spec),
      'usage: capture-ledger things do FILE --tenant T [--format FORMAT] [--ca PEM]... [--all] [--limit N]',
    );
    const help = helpText(spec);
    assert.match(help, /^usage: capture-ledger things do FILE/);
    assert.match(help, / {2}--format FORMAT {2}output \(one of: csv, json; default: csv\)\n/);
    assert.match(help, / {2}--tenant T {7}the tenant \(required\)\n/);
    assert.match(help, / {2}-h, --help {7}show this help\n/);
    assert.match(help, /examples:\n {2}capture-ledger things do x --tenant a\n$/);
  });
});
