import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CliIo } from '../../../src/cli/cli-io.js';
import { eventDetail, matches, matchesType, subjectFor } from '../../../src/cli/commands/events.js';
import { parseScopes } from '../../../src/cli/commands/keys.js';
import { archivedSeedName } from '../../../src/cli/commands/signing.js';
import { formatAuditReport } from '../../../src/cli/commands/audit.js';
import { COMMANDS, runCli } from '../../../src/cli/run-cli.js';
import { schemaStamp } from '../../../src/projector/projection-rebuild.js';
import { noteSignerFromSeed, parseVerifierKey, verifierKeyString } from '../../../src/transparency/checkpoint.js';
import { cosignerFromSeed } from '../../../src/witness/cosigner.js';
import { parseWitnessVkey } from '../../../src/witness/witness-key.js';

async function run(argv: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { env, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) };
  return { code: await runCli(argv, io), stdout, stderr };
}

describe('capture-ledger dispatch and help', () => {
  it('--help on the top level lists every command; no arguments is a usage error', async () => {
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    for (const c of COMMANDS) assert.ok(help.stdout.includes(c.path.join(' ')), c.path.join(' '));
    assert.match(help.stdout, /exit codes: 0 success, 1 failure/);
    const none = await run([]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /usage: capture-ledger <command>/);
  });

  for (const c of COMMANDS) {
    it(`${c.path.join(' ')} --help shows its usage, options and examples, without connecting`, async () => {
      const r = await run([...c.path, '--help'], { NATS_URL: 'nats://127.0.0.1:1' });
      assert.equal(r.code, 0);
      assert.equal(r.stderr, '');
      assert.ok(r.stdout.startsWith(`usage: capture-ledger ${c.path.join(' ')}`), r.stdout);
      for (const name of Object.keys(c.options)) assert.ok(r.stdout.includes(`--${name}`), `${name} documented`);
      assert.match(r.stdout, /examples:\n/);
    });
  }

  it('group help, unknown commands and a bad environment', async () => {
    const group = await run(['projections', '--help']);
    assert.equal(group.code, 0);
    assert.match(group.stdout, /usage: capture-ledger projections <status\|rebuild>/);
    assert.equal((await run(['projections'])).code, 2);
    const unknown = await run(['projections', 'explode']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command 'projections explode'/);
    const nothing = await run(['frobnicate']);
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /Run `capture-ledger --help`/);
    const env = await run(['usage', 'report', '--period', '2025-01'], { DATABASE_URL: 'mysql://x' });
    assert.equal(env.code, 2);
    assert.match(env.stderr, /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/);
  });
});

describe('command helpers', () => {
  const stored = (tenantId: string, type: string, occurredAt: string) => ({
    seq: 1,
    index: 0,
    subject: '',
    event: { tenantId, type, occurredAt } as any,
  });

  it('event filters', () => {
    assert.equal(subjectFor(undefined), 'ledger.>');
    assert.equal(subjectFor('acme'), 'ledger.tenant.acme');
    assert.equal(subjectFor('$system'), 'ledger.system');
    assert.ok(matchesType('capture.failed', ['capture.*']));
    assert.ok(!matchesType('captures.x', ['capture.*']));
    assert.ok(matchesType('key.created', []));
    const e = stored('acme', 'key.created', '2025-03-01T10:00:00.000Z');
    assert.ok(matches(e, { types: ['key.created'], tenantId: 'acme', since: new Date('2025-03-01T10:00:00Z') }));
    assert.ok(!matches(e, { types: [], until: new Date('2025-03-01T10:00:00Z') }), 'until is exclusive');
    assert.ok(!matches(e, { types: [], tenantId: 'other' }));
    assert.equal(
      eventDetail({
        type: 'capture.submitted',
        data: { captures: [{ captureId: 'cap_1' }, { captureId: 'cap_2' }], source: 'batch' },
      } as any),
      'captures=2 first=cap_1 source=batch',
    );
    assert.equal(
      eventDetail({ type: 'key.created', data: { keyHash: 'f'.repeat(64) } } as any),
      'keyHash=ffffffffffff…',
    );
  });

  it('scopes, seed archive names, schema stamps', () => {
    assert.deepEqual(parseScopes('capture, read,capture'), ['capture', 'read']);
    assert.throws(() => parseScopes('read,root'), /'root' is not a scope/);
    assert.equal(archivedSeedName('1a2b3c4d'), 'signing-key.1a2b3c4d.seed');
    assert.equal(schemaStamp(new Date('2025-03-01T12:05:01.123Z')), '20250301t120501123z');
  });

  it('audit report text names the first divergence and counts the rest', () => {
    const report = {
      tenantId: 'acme',
      subject: 'ledger.tenant.acme',
      ok: false,
      events: 3,
      commits: 3,
      firstSeq: 4,
      lastSeq: 9,
      headHash: 'h',
      checkpoint: 9,
      compared: 3,
      chainOnly: 0,
      cut: 'projection head' as const,
      snapshot: null,
      counts: {
        keys: 1,
        keysRevoked: 0,
        captures: { pending: 0, complete: 1, failed: 0 },
        usagePeriods: 1,
        webhooks: 0,
        webhooksDeleted: 0,
        schedules: 0,
        schedulesDeleted: 0,
      },
      divergences: [
        {
          kind: 'projection-mismatch' as const,
          ref: {
            seq: 7,
            index: 0,
            eventId: 'evt_x',
            type: 'capture.completed',
            occurredAt: '2025-03-01T00:00:00.000Z',
          },
          detail: { table: 'captures', key: 'cap_1', field: 'status', projection: 'pending', log: 'complete' },
        },
        {
          kind: 'projection-extra-row' as const,
          ref: null,
          detail: { table: 'api_keys', key: 'k', field: '(row)', projection: 'present', log: null },
        },
      ],
    };
    const text = formatAuditReport(report, false);
    assert.match(text, /^audit of tenant acme: DIVERGENCE\n/);
    assert.match(
      text,
      /first divergence at sequence 7 \(event 1 of its commit\), event evt_x, capture\.completed, occurred 2025-03-01T00:00:00\.000Z\n {4}captures cap_1: status is "pending" in the projection but "complete" from the log\n/,
    );
    assert.match(text, /1 more divergence; run with --all to list them\n$/);
    assert.match(
      formatAuditReport(report, true),
      /divergence 2 in the projection, explained by no event\n {4}api_keys k: the projection has this row but no event of the tenant creates it\n$/,
    );
  });
});

describe('log public-keys', () => {
  const logSeed = Buffer.alloc(32, 7).toString('base64');
  const witnessSeed = Buffer.alloc(32, 9).toString('base64');

  it('derives the log key and the witness vkey as the sequencer and the witness role do, as .env lines', async () => {
    const r = await run(['log', 'public-keys'], {
      LOG_SIGNING_KEY: logSeed,
      WITNESS_SIGNING_KEY: witnessSeed,
      WITNESS_NAME: 'witness.example.org/w1',
      PUBLIC_BASE_URL: 'https://ledger.example.org/',
    });
    assert.equal(r.code, 0, r.stderr);
    const lines = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => [l.split('=')[0], l.slice(l.indexOf('=') + 1)]),
    );
    assert.deepEqual(Object.keys(lines), ['LOG_KEY', 'WITNESS_VKEY']);
    assert.equal(
      lines['LOG_KEY'],
      verifierKeyString(noteSignerFromSeed('ledger.example.org/v1/log', Buffer.from(logSeed, 'base64'))),
    );
    assert.equal(parseVerifierKey(lines['LOG_KEY']!).name, 'ledger.example.org/v1/log');
    assert.equal(
      lines['WITNESS_VKEY'],
      cosignerFromSeed('witness.example.org/w1', Buffer.from(witnessSeed, 'base64')).vkey,
    );
    assert.equal(parseWitnessVkey(lines['WITNESS_VKEY']!).name, 'witness.example.org/w1');
    // LOG_ORIGIN names the log when set; without PUBLIC_BASE_URL the default is localhost:PORT.
    const origin = await run(['log', 'public-keys'], { LOG_SIGNING_KEY: logSeed, LOG_ORIGIN: 'log.example.org' });
    assert.match(origin.stdout, /^LOG_KEY=log\.example\.org\+[0-9a-f]{8}\+/);
    assert.match(
      (await run(['log', 'public-keys'], { LOG_SIGNING_KEY: logSeed })).stdout,
      /^LOG_KEY=localhost:8080\/v1\/log\+/,
    );
  });

  it('is a usage error without a seed, with a seed that is not 32 bytes, or a witness seed without a name', async () => {
    assert.equal((await run(['log', 'public-keys'], {})).code, 2);
    const short = await run(['log', 'public-keys'], { LOG_SIGNING_KEY: Buffer.alloc(16).toString('base64') });
    assert.equal(short.code, 2);
    assert.match(short.stderr, /LOG_SIGNING_KEY must be the base64 encoding of a 32-byte Ed25519 seed/);
    const nameless = await run(['log', 'public-keys'], { WITNESS_SIGNING_KEY: witnessSeed });
    assert.equal(nameless.code, 2);
    assert.match(nameless.stderr, /WITNESS_NAME/);
  });
});
