// The addresses this process serves HTTP on. No capture, redirect, subresource or webhook may connect to them,
// whatever ALLOW_PRIVATE_TARGETS says: an allow-list that covers the service's own address (127.0.0.1
// in tests, an intranet range in a deployment) would otherwise let a tenant capture its /metrics, which answers
// loopback clients without a token, or any other answer the service gives only to itself.
import { networkInterfaces } from 'node:os';
import type ipaddr from 'ipaddr.js';
import { parseIp } from './address-policy.js';

export interface OwnListeners {
  /** A listen address (HOST as configured or as bound: an IP, 0.0.0.0 / :: for all, or localhost) and its port. */
  add(host: string, port: number): void;
  /** Whether connecting to ip:port reaches one of them. */
  reaches(ip: string, port: number): boolean;
}

type Listener = { kind: 'every'; port: number } | { kind: 'one'; addr: ipaddr.IPv4 | ipaddr.IPv6; port: number };

/** Every address of this machine: loopback (all of 127.0.0.0/8 answers), the unspecified address, each interface's. */
function isLocal(addr: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  const range = addr.range();
  if (range === 'loopback' || range === 'unspecified') return true;
  const text = addr.toNormalizedString();
  return Object.values(networkInterfaces()).some((list) =>
    (list ?? []).some((i) => parseIp(i.address)?.toNormalizedString() === text),
  );
}

export function createOwnListeners(): OwnListeners {
  const listeners: Listener[] = [];
  return {
    add(host, port) {
      if (port === 0) return; // not bound yet: the bound port is added once it is
      const addr = parseIp(host);
      if (host === '' || host === 'localhost' || !addr || addr.range() === 'unspecified') {
        // All interfaces (and a name, which may mean several): any local address with this port.
        listeners.push({ kind: 'every', port });
      } else listeners.push({ kind: 'one', addr, port });
    },
    reaches(ip, port) {
      const addr = parseIp(ip);
      if (!addr) return false;
      return listeners.some((l) => {
        if (l.port !== port) return false;
        // Connecting to the unspecified address reaches this machine's loopback.
        if (l.kind === 'every' || addr.range() === 'unspecified') return isLocal(addr);
        return l.addr.kind() === addr.kind() && l.addr.toNormalizedString() === addr.toNormalizedString();
      });
    },
  };
}
