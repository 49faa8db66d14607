// Verifies a bearer JWT against the admin-registered external signers. The token's header and payload are read
// untrusted only to choose a signer and a key; everything that decides the outcome comes from the signer's
// configuration: the key, the algorithms that key allows, the issuer and the audience.
import { X509Certificate, type KeyObject } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { claimValue, defaultClaimsProperty } from './claim-value.ts';
import type { JwksSource } from './jwks-cache.ts';
import { acceptedAlgorithms, algorithmsForKey, describeKey } from './key-algorithms.ts';

export { claimValue } from './claim-value.ts';

export interface JwtSignerConfig {
  readonly id: string;
  readonly name: string;
  readonly issuer: string;
  readonly audience: string | null;
  readonly certPem: string | null;
  readonly jwksEndpoint: string | null;
  readonly kid: string | null;
  readonly claimsProperty: string;
  readonly useExternalId: boolean;
  readonly enabled: boolean;
}

export type JwtFailureReason = 'missing' | 'invalid' | 'expired';

export type ExtJwtResult =
  | { ok: true; signer: JwtSignerConfig; claims: Record<string, unknown>; subject: string }
  | { ok: false; reason: JwtFailureReason; detail: string; signer?: JwtSignerConfig };

export interface ExtJwtVerifierOptions {
  jwks: JwksSource;
  /** Allowed clock skew with the issuer; meant for small drift only. */
  clockToleranceSeconds?: number;
  now?: () => number;
}

export const defaultClockToleranceSeconds = 5;
const maxClockToleranceSeconds = 300;

type Failure = Extract<ExtJwtResult, { ok: false }>;

/** How far verification got with one signer: when several signers fail, the one that got furthest explains best. */
const Stage = { Key: 0, Signature: 1, Claims: 2 } as const;
type Stage = (typeof Stage)[keyof typeof Stage];

interface Attempt {
  readonly stage: Stage;
  readonly result: ExtJwtResult;
}

interface UntrustedToken {
  readonly kid: string | undefined;
  readonly alg: string | undefined;
  readonly iss: unknown;
}

export class ExtJwtVerifier {
  private readonly jwks: JwksSource;
  private readonly clockToleranceSeconds: number;
  private readonly now: () => number;

  constructor(options: ExtJwtVerifierOptions) {
    const tolerance = options.clockToleranceSeconds ?? defaultClockToleranceSeconds;
    if (!Number.isFinite(tolerance) || tolerance < 0 || tolerance > maxClockToleranceSeconds) {
      throw new RangeError(`ExtJwtVerifier: clockToleranceSeconds must be within 0..${maxClockToleranceSeconds}, got ${tolerance}`);
    }
    this.jwks = options.jwks;
    this.clockToleranceSeconds = tolerance;
    this.now = options.now ?? Date.now;
  }

  async verify(token: string, signers: readonly JwtSignerConfig[]): Promise<ExtJwtResult> {
    const untrusted = decodeUntrusted(token);
    // The real controller reports a malformed JWT as a missing one.
    if (untrusted === undefined) return { ok: false, reason: 'missing', detail: 'the bearer token is not a compact JWS JWT' };

    // Refused before any key lookup, so junk algorithms cannot make the JWKS cache refetch.
    if (untrusted.alg === undefined || !acceptedAlgorithms.has(untrusted.alg)) {
      return { ok: false, reason: 'invalid', detail: `${describeAlg(untrusted.alg)} is not accepted` };
    }
    const candidates = signersFor(signers, untrusted);
    if (candidates.length === 0) {
      return { ok: false, reason: 'invalid', detail: `no enabled signer for issuer ${describeUntrusted(untrusted.iss)}` };
    }
    let best: Attempt | undefined;
    for (const signer of candidates) {
      const attempt = await this.verifyWith(token, untrusted, signer);
      if (attempt.result.ok) return attempt.result;
      if (best === undefined || attempt.stage > best.stage) best = attempt;
    }
    return best!.result;
  }

  private async verifyWith(token: string, untrusted: UntrustedToken, signer: JwtSignerConfig): Promise<Attempt> {
    const resolved = await this.keyFor(signer, untrusted);
    if ('detail' in resolved) return { stage: Stage.Key, result: resolved };
    const { key } = resolved;
    const algorithms = algorithmsForKey(key);
    if (algorithms.length === 0) {
      return { stage: Stage.Key, result: invalid(`the signer's ${describeKey(key)} cannot verify any accepted algorithm`, signer) };
    }

    let claims: Record<string, unknown>;
    try {
      const verified = await jwtVerify(token, key, {
        algorithms,
        issuer: signer.issuer,
        audience: signer.audience ?? undefined,
        requiredClaims: ['exp'],
        clockTolerance: this.clockToleranceSeconds,
        currentDate: new Date(this.now()),
      });
      claims = verified.payload as Record<string, unknown>;
    } catch (error) {
      return explainRejection(error, untrusted, key, signer);
    }

    const property = signer.claimsProperty === '' ? defaultClaimsProperty : signer.claimsProperty;
    const subject = claimValue(claims, property);
    if (subject === undefined) return { stage: Stage.Claims, result: invalid(`the claim ${property} is missing`, signer) };
    return { stage: Stage.Claims, result: { ok: true, signer, claims, subject } };
  }

  private async keyFor(signer: JwtSignerConfig, untrusted: UntrustedToken): Promise<{ key: KeyObject } | Failure> {
    if (signer.certPem) {
      if (signer.kid && untrusted.kid !== undefined && untrusted.kid !== signer.kid) {
        return invalid(`the token kid ${JSON.stringify(untrusted.kid)} does not match the signer kid ${JSON.stringify(signer.kid)}`, signer);
      }
      try {
        return { key: new X509Certificate(signer.certPem).publicKey };
      } catch {
        return invalid('the signer certificate cannot be parsed', signer);
      }
    }
    if (signer.jwksEndpoint) {
      let key: KeyObject | undefined;
      try {
        key = await this.jwks.keyFor(signer.jwksEndpoint, untrusted.kid, untrusted.alg);
      } catch (error) {
        return invalid(`the signer's keys are unavailable: ${error instanceof Error ? error.message : String(error)}`, signer);
      }
      if (key !== undefined) return { key };
      return invalid(
        untrusted.kid === undefined
          ? 'the token has no kid and the signer JWKS does not hold exactly one matching key'
          : `unknown kid ${describeUntrusted(untrusted.kid)} for ${describeAlg(untrusted.alg)}: the signer JWKS has no such key`,
        signer,
      );
    }
    return invalid('the signer has neither a certificate nor a JWKS endpoint', signer);
  }
}

function decodeUntrusted(token: string): UntrustedToken | undefined {
  try {
    const payload = decodeJwt(token); // refuses anything but a three-part JWS with a JSON object payload
    const header = decodeProtectedHeader(token);
    return {
      kid: typeof header.kid === 'string' ? header.kid : undefined,
      alg: typeof header.alg === 'string' ? header.alg : undefined,
      iss: payload.iss,
    };
  } catch {
    return undefined;
  }
}

/** Enabled signers for the token's issuer; when some are pinned to the token's kid, only those. */
function signersFor(signers: readonly JwtSignerConfig[], untrusted: UntrustedToken): JwtSignerConfig[] {
  if (typeof untrusted.iss !== 'string') return [];
  const forIssuer = signers.filter((signer) => signer.enabled && signer.issuer === untrusted.iss);
  const pinned = forIssuer.filter((signer) => signer.kid && signer.kid === untrusted.kid);
  return pinned.length > 0 ? pinned : forIssuer;
}

function explainRejection(error: unknown, untrusted: UntrustedToken, key: KeyObject, signer: JwtSignerConfig): Attempt {
  // jose checks the signature before any claim, so a claim error means the signature held.
  if (error instanceof errors.JWTExpired) {
    return { stage: Stage.Claims, result: { ok: false, reason: 'expired', detail: `the token expired${expiryOf(error.payload)}`, signer } };
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    return { stage: Stage.Claims, result: invalid(claimProblem(error), signer) };
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return { stage: Stage.Signature, result: invalid(`${describeAlg(untrusted.alg)} is not allowed for the signer's ${describeKey(key)}`, signer) };
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return { stage: Stage.Signature, result: invalid('the signature does not verify', signer) };
  }
  // Other jose errors (bad header, bad payload) and jose's key checks (TypeError, e.g. an RSA key under 2048 bits).
  if (error instanceof errors.JOSEError || error instanceof TypeError) {
    return { stage: Stage.Signature, result: invalid(`the token was rejected: ${error.message}`, signer) };
  }
  throw error;
}

function claimProblem(error: InstanceType<typeof errors.JWTClaimValidationFailed>): string {
  if (error.claim === 'nbf' && error.reason === 'check_failed') return `the token is not valid yet${timeOf(' (nbf ', error.payload.nbf, ')')}`;
  if (error.claim === 'aud' && error.reason === 'check_failed') return 'the token audience does not include the signer audience';
  if (error.claim === 'iss' && error.reason === 'check_failed') return 'the token issuer does not match the signer issuer';
  if (error.reason === 'missing') return `the token has no ${error.claim} claim`;
  return `the ${error.claim} claim is invalid: ${error.message}`;
}

function expiryOf(payload: { exp?: unknown }): string {
  return timeOf(' at ', payload.exp, '');
}

function timeOf(before: string, seconds: unknown, after: string): string {
  return typeof seconds === 'number' && Number.isFinite(seconds) ? `${before}${new Date(seconds * 1000).toISOString()}${after}` : '';
}

function describeAlg(alg: string | undefined): string {
  return alg === undefined ? 'a token without algorithm' : `algorithm ${describeUntrusted(alg)}`;
}

/** Token-supplied text in a log line: quoted and bounded, so a hostile issuer cannot forge log content. */
function describeUntrusted(value: unknown): string {
  if (value === undefined) return '(none in token)';
  const quoted = JSON.stringify(typeof value === 'string' ? value : String(value));
  return quoted.length > 120 ? `${quoted.slice(0, 117)}...` : quoted;
}

function invalid(detail: string, signer: JwtSignerConfig): Failure {
  return { ok: false, reason: 'invalid', detail, signer };
}
