import { RequestError, TimeoutError, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { BundleVersion, SignedData, TimestampInfo } from './bundle-format.js';
import { fromBase64Strict, toBase64 } from './digests.js';
import { NotaryRefusal } from './errors.js';
import type { CertificateAttestation, CertifyRequest, Notary, NotaryDescription, SignRequest } from './notary.js';
import type { TimestampResult } from './tsa-client.js';
import { SUBJECTS } from '../infra/topology.js';

/**
 * The signer role's side of the notary (notary.ts) on NATS request/reply: `notary.describe`,
 * `notary.timestamp`, `notary.sign` and `notary.certify` (a capture certificate's hash, asked by the API), answered by every signer in one queue group. Only the signer holds
 * the signing key and runs the built-in TSA; the browser worker sends it bundle hashes, never artifacts.
 * Replies are `{ok: true, value}` or `{ok: false, error: {code, message}}`.
 */
export const NOTARY_SUBJECTS = {
  describe: SUBJECTS.notaryDescribe.subject,
  timestamp: SUBJECTS.notaryTimestamp.subject,
  sign: SUBJECTS.notarySign.subject,
  certify: SUBJECTS.notaryCertify.subject,
  signPdf: SUBJECTS.notarySignPdf.subject,
} as const;
const QUEUE = 'signers';

type Reply<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };
interface WireTimestamp {
  token: string;
  genTime: string;
  tsa: string;
}

const VERSIONS: readonly BundleVersion[] = ['0.1.0', '0.2.0'];
const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function parseSignRequest(body: unknown): SignRequest {
  const r = body as Partial<Record<keyof SignRequest, unknown>> | null;
  if (
    !r ||
    !isString(r.captureId) ||
    !isString(r.keyId) ||
    !isString(r.bundleHash) ||
    !/^sha256:[0-9a-f]{64}$/.test(r.bundleHash)
  ) {
    throw new NotaryRefusal(
      'bad-request',
      'a sign request needs captureId, keyId and a bundleHash of the form sha256:<64 hex>',
    );
  }
  if (!VERSIONS.includes(r.version as BundleVersion))
    throw new NotaryRefusal('bad-request', `version must be one of ${VERSIONS.join(', ')}`);
  const t = r.timestamp as Partial<TimestampInfo> | undefined;
  if (t !== undefined && (!isString(t.token) || !isString(t.genTime) || !isString(t.tsa))) {
    throw new NotaryRefusal('bad-request', 'timestamp needs token, genTime and tsa');
  }
  return {
    captureId: r.captureId,
    bundleHash: r.bundleHash,
    keyId: r.keyId,
    version: r.version as BundleVersion,
    ...(t ? { timestamp: t as TimestampInfo } : {}),
  };
}

const PREFIXED = /^sha256:[0-9a-f]{64}$/;
function parseCertifyRequest(body: unknown): CertifyRequest {
  const r = body as Partial<Record<keyof CertifyRequest, unknown>> | null;
  if (
    !r ||
    !isString(r.captureId) ||
    !isString(r.bundleHash) ||
    !PREFIXED.test(r.bundleHash) ||
    !isString(r.certificateHash) ||
    !PREFIXED.test(r.certificateHash)
  ) {
    throw new NotaryRefusal(
      'bad-request',
      'a certify request needs captureId, and bundleHash and certificateHash of the form sha256:<64 hex>',
    );
  }
  return { captureId: r.captureId, bundleHash: r.bundleHash, certificateHash: r.certificateHash };
}

/** Answers notary requests from `notary` (a local one: this process holds the key) until stopped. */
export function serveNotary(nc: NatsConnection, notary: Notary, log: Logger): { stop(): Promise<void> } {
  const answer =
    <T>(handle: (body: unknown) => Promise<T>) =>
    async (msg: Msg): Promise<void> => {
      let reply: Reply<T>;
      try {
        reply = { ok: true, value: await handle(msg.data.length > 0 ? msg.json() : null) };
      } catch (err) {
        const code = err instanceof NotaryRefusal ? err.code : 'failed';
        if (code === 'failed') log.warn({ err, subject: msg.subject }, 'notary request failed');
        reply = { ok: false, error: { code, message: (err as Error).message } };
      }
      msg.respond(JSON.stringify(reply));
    };

  const handlers: Record<string, (msg: Msg) => Promise<void>> = {
    [NOTARY_SUBJECTS.describe]: answer(() => notary.describe()),
    [NOTARY_SUBJECTS.timestamp]: answer(async (body): Promise<WireTimestamp> => {
      const digest = fromBase64Strict(String((body as { digest?: unknown } | null)?.digest ?? ''));
      if (digest?.byteLength !== 32)
        throw new NotaryRefusal('bad-request', 'digest must be a base64 SHA-256 digest (32 bytes)');
      const result = await notary.timestamp(digest);
      return { token: toBase64(result.token), genTime: result.genTime, tsa: result.tsa };
    }),
    [NOTARY_SUBJECTS.sign]: answer(async (body) => {
      const request = parseSignRequest(body);
      const signed = await notary.sign(request);
      // The audit trail of the key: which capture each signature was asked for.
      log.info({ captureId: request.captureId, bundleHash: request.bundleHash, keyId: signed.keyId }, 'bundle signed');
      return signed;
    }),
    [NOTARY_SUBJECTS.certify]: answer(async (body) => {
      const request = parseCertifyRequest(body);
      const attested = await notary.certify(request);
      log.info(
        { captureId: request.captureId, certificateHash: request.certificateHash, keyId: attested.signature.keyId },
        'certificate signed',
      );
      return attested;
    }),
    [NOTARY_SUBJECTS.signPdf]: answer(async (body) => {
      const r = body as { captureId?: unknown; digest?: unknown } | null;
      if (!isString(r?.captureId) || !isString(r.digest))
        throw new NotaryRefusal('bad-request', 'a signPdf request needs captureId and digest (base64 SHA-256)');
      const signed = await notary.signPdf({ captureId: r.captureId, digest: r.digest });
      log.info({ captureId: r.captureId, digest: r.digest }, 'certificate PDF signed');
      return signed;
    }),
  };
  const subscriptions: Subscription[] = Object.entries(handlers).map(([subject, handle]) =>
    nc.subscribe(subject, {
      queue: QUEUE,
      callback: (err, msg) => (err ? log.warn({ err, subject }, 'notary subscription failed') : void handle(msg)),
    }),
  );
  return {
    async stop() {
      await Promise.all(subscriptions.map((s) => s.drain().catch(() => undefined)));
    },
  };
}

/** How long a signer may take: a timestamp includes the TSA client's own retries. */
const TIMEOUT_MS = { describe: 10_000, sign: 10_000, timestamp: 60_000, certify: 60_000, signPdf: 60_000 } as const;

/** The worker's notary: every call is a request to a signer role somewhere in the deployment. */
export function remoteNotary(nc: NatsConnection): Notary {
  async function call<T>(kind: keyof typeof NOTARY_SUBJECTS, body: unknown): Promise<T> {
    let msg: Msg;
    try {
      msg = await nc.request(NOTARY_SUBJECTS[kind], JSON.stringify(body ?? null), { timeout: TIMEOUT_MS[kind] });
    } catch (err) {
      if (err instanceof RequestError && err.isNoResponders()) {
        throw new Error(
          'no signer is running: start a process with the signer role (ROLES=signer), which holds SIGNING_KEY',
          { cause: err },
        );
      }
      if (err instanceof TimeoutError || (err instanceof RequestError && err.cause instanceof TimeoutError)) {
        throw new Error(`the signer did not answer ${NOTARY_SUBJECTS[kind]} within ${TIMEOUT_MS[kind]} ms`, {
          cause: err,
        });
      }
      throw err;
    }
    const reply = msg.json<Reply<T>>();
    if (reply.ok) return reply.value;
    if (reply.error.code === 'failed') throw new Error(`the signer failed: ${reply.error.message}`);
    throw new NotaryRefusal(reply.error.code as NotaryRefusal['code'], reply.error.message);
  }
  return {
    describe: () => call<NotaryDescription | null>('describe', null),
    async timestamp(digest): Promise<TimestampResult> {
      const t = await call<WireTimestamp>('timestamp', { digest: toBase64(digest) });
      const token = fromBase64Strict(t.token);
      if (!token) throw new Error('the signer answered a timestamp whose token is not base64');
      return { token, genTime: t.genTime, tsa: t.tsa };
    },
    sign: (request) => call<SignedData>('sign', request),
    certify: (request) => call<CertificateAttestation>('certify', request),
    signPdf: (request) => call<{ cms: string }>('signPdf', request),
  };
}
