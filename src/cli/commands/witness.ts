import pino from 'pino';
import { CliError, EXIT_OK, UsageError } from '../cli-io.js';
import { type CommandSpec, intOpt, listOpt, stringOpt } from '../command-spec.js';
import { startWitness } from '../../witness/run-witness.js';
import { readLogKey } from './log.js';

/** `witness`: run a C2SP tlog-witness of a log with nothing but its published verifier key (src/witness/). */
export const witness: CommandSpec = {
  path: ['witness'],
  summary:
    "Run a witness of a transparency log: cosign its checkpoints, refuse a split view (needs only the log's key).",
  description: `
Serves the C2SP tlog-witness protocol (POST /add-checkpoint) for the logs whose verifier keys are given, until
stopped. Each checkpoint it cosigns must be signed by the log key and, by the consistency proof sent with it,
extend the last one it cosigned for that origin (kept in DATA-DIR/witness-state.json); a checkpoint that forks
the log is refused (409/422) and recorded in DATA-DIR/witness-conflicts.jsonl. The witness's own Ed25519 key is
--key-file, or WITNESS_SIGNING_KEY (base64 seed), or generated once into DATA-DIR/witness-key.seed; its public key
(a vkey, printed at start and served at GET /key) is what the log operator adds to LOG_WITNESSES and relying
parties pass to \`verify --witness-key\`. Needs no NATS, no database and no credential of the log's operator.`,
  options: {
    'log-key': {
      type: 'string',
      value: 'KEY|FILE',
      multiple: true,
      required: true,
      help: 'the verifier key of a log to witness (GET /v1/log/key), inline or a file (may repeat)',
    },
    origin: { type: 'string', value: 'ORIGIN', help: "the log's origin line, when it is not the key's name" },
    name: {
      type: 'string',
      value: 'NAME',
      help: "this witness's key name, e.g. witness.example.org/w1",
      required: true,
    },
    port: { type: 'string', value: 'PORT', help: 'port to listen on', default: '8090' },
    host: { type: 'string', value: 'HOST', help: 'address to listen on', default: '127.0.0.1' },
    'data-dir': {
      type: 'string',
      value: 'DIR',
      help: 'where the state (and a generated key) is kept',
      default: './data/witness',
    },
    'key-file': {
      type: 'string',
      value: 'FILE',
      help: "a file holding the witness key's base64 32-byte seed (mode 0600)",
    },
  },
  examples: [
    'curl -s https://ledger.example.org/v1/log/key > log.vkey',
    'capture-ledger witness --log-key log.vkey --name witness.example.org/w1 --port 8090 --data-dir /var/lib/witness',
  ],
  async run(args, io) {
    const logKeys = await Promise.all(listOpt(args, 'log-key').map(async (k) => (await readLogKey(k)).text));
    const origin = stringOpt(args, 'origin');
    if (origin !== undefined && logKeys.length !== 1) throw new UsageError('--origin goes with exactly one --log-key');
    const port = intOpt(args, 'port', 0, 65535)!;
    const running = await startWitness({
      name: stringOpt(args, 'name')!,
      logKeys,
      origin,
      // --key-file, else WITNESS_SIGNING_KEY, else the seed generated once into the data directory.
      keyFile: stringOpt(args, 'key-file'),
      seedBase64: stringOpt(args, 'key-file') ? undefined : io.env.WITNESS_SIGNING_KEY?.trim() || undefined,
      dataDir: stringOpt(args, 'data-dir')!,
      port,
      host: stringOpt(args, 'host')!,
      log: pino({ level: io.env.LOG_LEVEL ?? 'info' }, pino.destination(2)),
    }).catch((err: Error) => {
      throw new CliError(err.message, 'Check the log key, the witness name and the data directory.');
    });
    await io.stdout(`${JSON.stringify({ url: running.url, vkey: running.vkey })}\n`);
    await new Promise<void>((resolve) => {
      if (!io.signal || io.signal.aborted) return resolve();
      io.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await running.close();
    return EXIT_OK;
  },
};
