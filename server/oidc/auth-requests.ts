// Authorization requests in progress, and the codes they end in, kept in this controller's memory only (as
// OpenZiti's controller keeps them): a login's steps all reach the controller that began it, and nothing is written
// to the cluster for them. Both are bounded in number and time; a code is good once, for one minute, and only with
// the PKCE verifier, client and redirect URI of its request.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../common/time/clock.ts';
import type { AuthQuery } from '../model/entities.ts';
import type { PrimaryAuthentication } from '../edge/login/password-login.ts';

export interface AuthRequestParams {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  readonly state?: string;
  readonly nonce?: string;
  readonly codeChallenge: string;
  /** Config type ids asked for at /authorize (a login step may name more). */
  readonly configTypes: readonly string[];
  /** Where the authorization request came from (`ip:port`). */
  readonly remoteAddress: string;
}

/** What the primary login of a request proved, and the secondary factors it still owes. */
export interface RequestLogin {
  readonly primary: PrimaryAuthentication;
  readonly configTypes: readonly string[];
  readonly authPolicyId: string;
  /** When the primary login succeeded (ms). */
  readonly atMs: number;
  /** Methods proven so far, as OpenID's amr: the primary method, then `totp`, `ejs:<signerId>`. */
  readonly amr: string[];
  authQueries: AuthQuery[];
}

export interface AuthRequest extends AuthRequestParams {
  readonly id: string;
  /** The API session the login's tokens will stand for (`z_asid`), fixed when the request is made. */
  readonly apiSessionId: string;
  readonly createdAtMs: number;
  login?: RequestLogin;
}

export interface AuthRequestLimits {
  readonly requestTtlMs: number;
  readonly codeTtlMs: number;
  /** Pending requests at once on this controller; past it a new one is refused until some expire. */
  readonly maxPending: number;
  /** Pending requests of one client address: its oldest goes to make room, so one source cannot fill the table. */
  readonly maxPendingPerAddress: number;
}

export const defaultAuthRequestLimits: AuthRequestLimits = { requestTtlMs: 5 * 60_000, codeTtlMs: 60_000, maxPending: 10_000, maxPendingPerAddress: 100 };

export class TooManyAuthRequests extends Error {
  constructor() {
    super('too many authorization requests in progress on this controller');
  }
}

export class AuthRequests {
  private readonly requests = new Map<string, AuthRequest>();
  private readonly codes = new Map<string, { request: AuthRequest; expiresAtMs: number }>();
  /** Client address (without port) → its pending requests' ids, oldest first. */
  private readonly byAddress = new Map<string, string[]>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: AuthRequestLimits = defaultAuthRequestLimits,
  ) {}

  get pending(): number {
    return this.requests.size;
  }

  create(params: AuthRequestParams): AuthRequest {
    this.sweep();
    const address = addressOf(params.remoteAddress);
    const own = (this.byAddress.get(address) ?? []).filter((id) => this.requests.has(id));
    // A source at its share gives up its oldest request; only then does the table's own bound apply.
    while (own.length >= this.limits.maxPendingPerAddress) this.requests.delete(own.shift()!);
    if (this.requests.size >= this.limits.maxPending) throw new TooManyAuthRequests();
    const request: AuthRequest = { ...params, id: randomUUID(), apiSessionId: randomUUID(), createdAtMs: this.clock.now() };
    this.requests.set(request.id, request);
    own.push(request.id);
    this.byAddress.set(address, own);
    return request;
  }

  /** The live request `id` names; undefined when unknown, expired or already turned into a code. */
  get(id: string): AuthRequest | undefined {
    const request = this.requests.get(id);
    if (!request) return undefined;
    if (this.clock.now() - request.createdAtMs > this.limits.requestTtlMs) {
      this.requests.delete(id);
      return undefined;
    }
    return request;
  }

  /** Ends a request that the client has nothing more to do with (a refused login it must start again). */
  drop(id: string): void {
    this.requests.delete(id);
  }

  /** The request's one code: it leaves the pending list, so its login steps can no longer be replayed. */
  issueCode(request: AuthRequest): string {
    this.requests.delete(request.id);
    const code = randomBytes(32).toString('base64url');
    this.codes.set(code, { request, expiresAtMs: this.clock.now() + this.limits.codeTtlMs });
    return code;
  }

  /**
   * Redeems a code once. Answers its request when the client, redirect URI and PKCE verifier are those of the
   * request; a code presented with anything else is spent all the same (RFC 6749 4.1.2: a code is never good twice).
   */
  redeem(code: string, clientId: string, redirectUri: string | undefined, codeVerifier: string): { ok: true; request: AuthRequest } | { ok: false; reason: string } {
    const entry = this.codes.get(code);
    if (!entry) return { ok: false, reason: 'unknown or used authorization code' };
    this.codes.delete(code);
    if (this.clock.now() > entry.expiresAtMs) return { ok: false, reason: 'authorization code expired' };
    const { request } = entry;
    if (request.clientId !== clientId) return { ok: false, reason: 'the code was issued to another client' };
    if (redirectUri !== undefined && redirectUri !== request.redirectUri) return { ok: false, reason: 'redirect_uri differs from the authorization request' };
    if (!pkceMatches(request.codeChallenge, codeVerifier)) return { ok: false, reason: 'code_verifier does not match the code_challenge' };
    return { ok: true, request };
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [id, request] of this.requests) {
      if (now - request.createdAtMs <= this.limits.requestTtlMs) break; // insertion order: the rest are newer
      this.requests.delete(id);
    }
    for (const [address, ids] of this.byAddress) {
      const live = ids.filter((id) => this.requests.has(id));
      if (live.length === 0) this.byAddress.delete(address);
      else if (live.length !== ids.length) this.byAddress.set(address, live);
    }
    for (const [code, entry] of this.codes) if (now > entry.expiresAtMs) this.codes.delete(code);
  }
}

/** The host part of `ip:port` (or `[v6]:port`): a client's requests count together whatever port they came from. */
function addressOf(remoteAddress: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(remoteAddress);
  if (bracketed) return bracketed[1]!;
  const colons = remoteAddress.split(':').length - 1;
  return colons === 1 ? remoteAddress.slice(0, remoteAddress.lastIndexOf(':')) : remoteAddress;
}

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge; verifiers are 43 to 128 unreserved characters. */
export function pkceMatches(challenge: string, verifier: string): boolean {
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
