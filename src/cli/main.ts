#!/usr/bin/env node
/**
 * `capture-ledger`: the operator CLI (package.json "bin"). Everything lives in run-cli.ts; this file only wires
 * the real process: streams with back-pressure, SIGINT/SIGTERM as an abort signal, the exit code.
 */
import { runCli } from './run-cli.js';

const controller = new AbortController();
let interrupted = 0;
const onSignal = () => {
  // First signal: stop cleanly (events tail exits 0). Second: give up at once.
  if (++interrupted > 1) process.exit(130);
  controller.abort();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// `capture-ledger events list | head` closes our stdout early: that is a normal end, not a failure.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) =>
    new Promise<void>((resolve) => {
      if (process.stdout.write(text)) resolve();
      else process.stdout.once('drain', resolve);
    }),
  stderr: (text) => void process.stderr.write(text),
  stderrIsTTY: process.stderr.isTTY === true,
  signal: controller.signal,
});
process.exitCode = code;
// Connections are closed by the commands; anything left (a stray timer) must not keep the CLI alive.
setTimeout(() => process.exit(code), 200).unref();
