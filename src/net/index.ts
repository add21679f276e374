export {
  createAddressPolicy,
  parseAllowCidrs,
  parseIp,
  type AddressPolicy,
  type AddressVerdict,
} from './address-policy.js';
export { createOwnListeners, type OwnListeners } from './own-listeners.js';
export {
  checkTargetUrl,
  urlRejectionStatus,
  MAX_URL_LENGTH,
  type UrlCheckDeps,
  type UrlCheckResult,
  type UrlRejectionReason,
} from './url-policy.js';
export {
  startEgressProxy,
  chromiumProxyArgs,
  type EgressProxy,
  type EgressProxyOptions,
  type EgressProxyStats,
  type EgressExplanation,
  type EgressFailureKind,
  type EgressLogger,
} from './egress-proxy.js';
export { createConnectionLog, type ConnectionLog, type ObservedConnection } from './connection-log.js';
export { probeTls, type TlsObservation } from './tls-probe.js';
export { safeRequest, MAX_RESPONSE_BODY_BYTES, type SafeRequestOptions, type SafeResponse } from './safe-request.js';
export { EgressBlockedError, NetworkRequestError, RequestTimeoutError } from './errors.js';
export { systemResolver, type Resolver } from './resolve.js';
