import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import { checkAdmin } from './auth.js';
import { HttpProblem } from './problem.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * The operator endpoints' credential and limits (spec 4.11, 5.2). The key endpoints take spec 4.11's 5 requests per
 * 60 s per address before the credential; every other /v1/admin/* route charges the same limit to failed admin
 * credentials only (issue 28), so the admin key cannot be guessed at the general per-address rate anywhere. Both
 * fail closed: a guess must not get through while NATS is unreachable (docs/security.md).
 */
export interface OperatorGuard {
  /** onRequest of the key endpoints: 5 requests per 60 s per address, then the admin credential. */
  keyEndpoints(): (req: FastifyRequest) => Promise<void>;
  /** onRequest of the other operator routes: the admin credential, failed ones charged at the operator limit. */
  credential(): (req: FastifyRequest) => Promise<void>;
}

/** spec 4.11 and 8.1: "Operator key endpoints: 5 requests per 60 seconds per IP". */
export const OPERATOR_LIMIT = 5;
const OPERATOR_WINDOW_MS = 60_000;

const tooMany = (what: string, retryAfterSec: number) =>
  new HttpProblem(
    429,
    `Too many ${what} from this address; retry in ${retryAfterSec} s.`,
    'Too Many Requests',
    {},
    { 'Retry-After': String(retryAfterSec) },
  );

export function createOperatorGuard(config: Config, limiter: RateLimiter): OperatorGuard {
  const take = (key: string, tokens: number) =>
    limiter.take(key, OPERATOR_LIMIT, OPERATOR_WINDOW_MS, tokens, { failClosed: true });
  return {
    keyEndpoints() {
      return async (req) => {
        const d = await take(`admin-keys:${req.ip}`, 1);
        if (!d.allowed) throw tooMany('requests to the key endpoints', d.retryAfterSec);
        checkAdmin(req, config.ADMIN_KEY);
      };
    },
    credential() {
      return async (req) => {
        const key = `admin-fail:${req.ip}`;
        // Checked before the credential: an address out of guesses is not told whether this one was right.
        const before = await take(key, 0);
        if (!before.allowed) throw tooMany('failed admin credentials', before.retryAfterSec);
        try {
          checkAdmin(req, config.ADMIN_KEY);
        } catch (err) {
          if (err instanceof HttpProblem && err.status === 401) await take(key, 1);
          throw err;
        }
      };
    },
  };
}
