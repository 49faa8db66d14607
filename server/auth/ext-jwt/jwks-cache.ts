// Caches each external signer's JWKS so a login does not cost a round trip to the issuer, while still following
// key rotation: a kid we have not seen triggers a refetch, rate-limited so a flood of made-up kids cannot turn us
// into a traffic amplifier against the issuer.
//
// Failure reporting (this module never logs):
// - no set could ever be fetched → keyFor rejects with JwksFetchError (the latest failure is remembered and
//   re-thrown until minRefetchIntervalMs has passed, so a down issuer is not retried on every login);
// - a refresh fails while a set is cached → the cached set keeps being served, even past ttlMs; only when the
//   wanted key is missing from it does keyFor reject with the JwksFetchError, since the key may exist upstream;
// - options.onFetchError hears about every failed fetch, so the caller can log it.
import type { KeyObject } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { displayEndpoint, fetchJwksDocument, httpsEndpoint, JwksFetchError, type JwksFetchLimits } from './jwks-fetch.ts';
import { selectKey, verificationKeys, type VerificationKey } from './jwk-set.ts';
import type { JwksAddressPolicy } from './jwks-address-policy.ts';

export { JwksFetchError } from './jwks-fetch.ts';

export interface JwksSource {
  keyFor(endpoint: string, kid: string | undefined, alg: string | undefined): Promise<KeyObject | undefined>;
}

export interface JwksCacheOptions {
  /** Extra CAs (PEM) trusted for JWKS endpoints, on top of Node's default roots. */
  trustedCaPems?: readonly string[];
  ttlMs?: number;
  minRefetchIntervalMs?: number;
  fetchTimeoutMs?: number;
  maxBytes?: number;
  /** Endpoints may resolve to loopback, link-local and private addresses (default false: public ones only). */
  allowPrivateAddresses?: boolean;
  /** How host names are resolved (default: the system resolver). */
  resolve?: JwksAddressPolicy['resolve'];
  now?: () => number;
  /** Called for every failed fetch, including those hidden by serving the cached set. */
  onFetchError?: (error: JwksFetchError) => void;
}

export const jwksCacheDefaults = {
  ttlMs: 5 * 60_000,
  minRefetchIntervalMs: 10_000,
  fetchTimeoutMs: 5_000,
  maxBytes: 1024 * 1024,
} as const;

interface EndpointState {
  keys: readonly VerificationKey[] | undefined;
  fetchedAt: number;
  lastAttemptAt: number;
  /** The outcome of the latest attempt: cleared by a success. */
  lastError: JwksFetchError | undefined;
  inFlight: Promise<JwksFetchError | undefined> | undefined;
}

export class JwksCache implements JwksSource {
  private readonly limits: JwksFetchLimits;
  private readonly ttlMs: number;
  private readonly minRefetchIntervalMs: number;
  private readonly now: () => number;
  private readonly onFetchError: (error: JwksFetchError) => void;
  private readonly endpoints = new Map<string, EndpointState>();

  constructor(options: JwksCacheOptions = {}) {
    this.ttlMs = nonNegative('ttlMs', options.ttlMs ?? jwksCacheDefaults.ttlMs);
    this.minRefetchIntervalMs = nonNegative('minRefetchIntervalMs', options.minRefetchIntervalMs ?? jwksCacheDefaults.minRefetchIntervalMs);
    this.limits = {
      ca: [...rootCertificates, ...(options.trustedCaPems ?? [])],
      timeoutMs: positive('fetchTimeoutMs', options.fetchTimeoutMs ?? jwksCacheDefaults.fetchTimeoutMs),
      maxBytes: positive('maxBytes', options.maxBytes ?? jwksCacheDefaults.maxBytes),
      addresses: { allowPrivateAddresses: options.allowPrivateAddresses ?? false, ...(options.resolve ? { resolve: options.resolve } : {}) },
    };
    this.now = options.now ?? Date.now;
    this.onFetchError = options.onFetchError ?? (() => {});
  }

  async keyFor(endpoint: string, kid: string | undefined, alg: string | undefined): Promise<KeyObject | undefined> {
    const url = httpsEndpoint(endpoint);
    const state = this.stateFor(url.href);

    if (state.keys === undefined || this.now() - state.fetchedAt >= this.ttlMs) {
      const failure = await this.refresh(state, url);
      if (state.keys === undefined) throw failure ?? new JwksFetchError(displayEndpoint(url), 'no keys were fetched');
    }
    const cached = selectKey(state.keys, kid, alg);
    if (cached !== undefined) return cached;

    // Not in the set: the issuer may have rotated its keys since we fetched it.
    const failure = await this.refresh(state, url);
    if (failure !== undefined) throw failure;
    return selectKey(state.keys, kid, alg);
  }

  clear(): void {
    this.endpoints.clear();
  }

  private stateFor(endpoint: string): EndpointState {
    let state = this.endpoints.get(endpoint);
    if (state === undefined) {
      state = { keys: undefined, fetchedAt: 0, lastAttemptAt: -Infinity, lastError: undefined, inFlight: undefined };
      this.endpoints.set(endpoint, state);
    }
    return state;
  }

  /**
   * Fetches the set again, joining a fetch already in flight, unless the last attempt started less than
   * minRefetchIntervalMs ago. Resolves to the failure of the latest attempt, or undefined if it succeeded.
   */
  private refresh(state: EndpointState, url: URL): Promise<JwksFetchError | undefined> {
    if (state.inFlight !== undefined) return state.inFlight;
    if (this.now() - state.lastAttemptAt < this.minRefetchIntervalMs) return Promise.resolve(state.lastError);
    state.lastAttemptAt = this.now();
    state.inFlight = this.fetchKeys(url).then(
      (keys) => {
        state.inFlight = undefined;
        state.keys = keys;
        state.fetchedAt = this.now();
        state.lastError = undefined;
        return undefined;
      },
      (error: unknown) => {
        state.inFlight = undefined;
        const failure = error instanceof JwksFetchError ? error : new JwksFetchError(displayEndpoint(url), String(error), { cause: error });
        state.lastError = failure;
        this.onFetchError(failure);
        return failure;
      },
    );
    return state.inFlight;
  }

  private async fetchKeys(url: URL): Promise<readonly VerificationKey[]> {
    const document = await fetchJwksDocument(url, this.limits);
    const keys = verificationKeys(document.keys);
    // An empty set is treated as a failed fetch, so it cannot wipe out keys that still verify.
    if (keys.length === 0) throw new JwksFetchError(displayEndpoint(url), `no usable signature keys among ${document.keys.length} keys`);
    return keys;
  }
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`JwksCache: ${name} must be a non-negative number, got ${value}`);
  return value;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`JwksCache: ${name} must be a positive number, got ${value}`);
  return value;
}
