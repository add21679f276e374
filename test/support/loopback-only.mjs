// Preload (NODE_OPTIONS=--import) for third-party tools run by tests: any TCP connection to an address other
// than loopback is refused and written to $LOOPBACK_ONLY_LOG, so a test shows the tool worked offline.
import { appendFileSync } from 'node:fs';
import net from 'node:net';

const connect = net.Socket.prototype.connect;
const loopback = (host) => host === undefined || host === 'localhost' || host === '::1' || /^127\./.test(host);

net.Socket.prototype.connect = function (...args) {
  // Node's own callers pass [options, callback] as one normalised array.
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const opts =
    typeof first === 'object' && first !== null
      ? first
      : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
  if (!opts.path && !loopback(opts.host)) {
    if (process.env.LOOPBACK_ONLY_LOG) appendFileSync(process.env.LOOPBACK_ONLY_LOG, `${opts.host}:${opts.port}\n`);
    process.nextTick(() => this.destroy(new Error(`loopback-only: connection to ${opts.host}:${opts.port} refused`)));
    return this;
  }
  return connect.apply(this, args);
};
