// TOTP enrollment and use for an identity: start, verify, cancel or remove, answer an MFA challenge, read or replace
// recovery codes. A code is matched here (the secret is opened with the MFA key), then the command carries what it
// proved (a TOTP step, or a recovery code's keyed hash) so the state machine can refuse a replay in log order.
// Wrong codes are limited per identity (MfaCodeLimit), and an identity's codes are checked one at a time.
import type { Clock } from '../../common/time/clock.ts';
import type { Logger } from '../../common/log/logger.ts';
import { isIdentityDisabled } from '../auth/identity-state.ts';
import { KeyedSerialQueue } from '../auth/keyed-serial-queue.ts';
import { findRecoveryCode, hashRecoveryCode, newRecoveryCodes } from '../auth/mfa/recovery-codes.ts';
import { qrCodePng } from '../auth/mfa/qr-code.ts';
import type { SecretBox } from '../auth/mfa/secret-box.ts';
import { matchTotp, newTotpSecret, provisioningUrl } from '../auth/mfa/totp.ts';
import type { MfaProof } from '../model/commands.ts';
import type { ApiSession, Identity, Mfa } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import type { AuthPolicyService } from './auth-policy-service.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { isoTime } from '../../common/time/iso-time.ts';

export type CodeKinds = 'totp' | 'totp-or-recovery';

/**
 * Wrong TOTP and recovery codes an identity may give before it is locked out, and for how long, when its auth
 * policy sets no tighter limit. It holds even when the policy's maxAttempts is 0 (the default policy's "unlimited"
 * passwords): six digits are guessable. Counted in the replicated model (mfa.failed), like the policy's lockout:
 * a count per controller would give an attacker the limit once per controller, and the limit itself bounds these
 * writes (at most maxFailedCodes per identity per lockout). A correct code resets the count; reaching it locks the
 * identity (disabled until the lockout ends, its API sessions ended) until time passes or an admin enables it.
 */
export interface MfaCodeLimit {
  readonly maxFailedCodes: number;
  readonly lockoutMs: number;
}

export const defaultMfaCodeLimit: MfaCodeLimit = { maxFailedCodes: 5, lockoutMs: 15 * 60_000 };

export interface MfaDetail {
  readonly mfa: Mfa;
  /** While unverified: the provisioning URL and the recovery codes. */
  readonly provisioningUrl?: string;
  readonly recoveryCodes?: string[];
}

export class MfaService {
  /** One code check (and its write) at a time per identity: a burst of guesses is judged on every earlier failure. */
  private readonly checks = new KeyedSerialQueue();

  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly policies: AuthPolicyService,
    private readonly issuer: string,
    private readonly logger: Logger,
    private readonly codeLimit: MfaCodeLimit = defaultMfaCodeLimit,
    /** Told of every wrong code (the metrics count them). */
    private readonly onCodeFailure: () => void = () => undefined,
  ) {}

  find(identityId: string): Mfa | undefined {
    return this.store.table<Mfa>(tables.mfas).findUnique('identityId', identityId);
  }

  isEnrolled(identityId: string): boolean {
    return this.find(identityId)?.isVerified === true;
  }

  /** GET /current-identity/mfa: 404 before enrollment; the secrets only while it is unverified. */
  detail(identity: Identity): MfaDetail {
    const mfa = this.require(identity);
    if (mfa.isVerified) return { mfa };
    return { mfa, provisioningUrl: this.provisioningUrlOf(identity, mfa), recoveryCodes: this.recoveryCodesOf(mfa) };
  }

  async start(identity: Identity): Promise<MfaDetail> {
    if (this.find(identity.id)) throw new EdgeError('MFA_EXISTS', { code: 'MFA_EXISTS', message: 'an MFA enrollment already exists for this identity: cancel or remove it first' });
    const secret = newTotpSecret();
    const codes = newRecoveryCodes();
    const at = this.now();
    const mfa: Mfa = {
      id: newEntityId(),
      createdAt: at,
      updatedAt: at,
      tags: {},
      identityId: identity.id,
      isVerified: false,
      secret: this.box.seal(secret, identity.id),
      recoveryCodes: this.box.seal(JSON.stringify(codes), identity.id),
      recoveryCodeHashes: codes.map((code) => hashRecoveryCode(this.box.hashKey, code)),
      lastAcceptedStep: 0,
      failedAttempts: 0,
    };
    await this.writer.write({ type: 'mfa.create', mfa });
    return { mfa, provisioningUrl: provisioningUrl(this.issuer, identity.name, secret), recoveryCodes: codes };
  }

  /** A live TOTP code completes enrollment (recovery codes are refused here) and passes the session's MFA. */
  verify(identity: Identity, session: Pick<ApiSession, 'id'>, code: string): Promise<void> {
    return this.oneAtATime(identity, async () => {
      const mfa = this.require(identity);
      if (mfa.isVerified) throw EdgeError.notFound('mfa', identity.id);
      const proof = await this.prove(identity, mfa, code, 'totp');
      await this.writer.write({ type: 'mfa.verify', identityId: identity.id, step: (proof as { totpStep: number }).totpStep, at: this.now(), apiSessionId: session.id });
    });
  }

  /** Cancels an unverified enrollment (no code needed), or removes a verified one with a TOTP or recovery code. */
  remove(identity: Identity, code: string): Promise<void> {
    return this.oneAtATime(identity, async () => {
      const mfa = this.require(identity);
      if (!mfa.isVerified) {
        await this.writer.write({ type: 'mfa.delete', identityId: identity.id });
        return;
      }
      const proof = await this.prove(identity, mfa, code, 'totp-or-recovery');
      await this.writer.write({ type: 'mfa.delete', identityId: identity.id, proof });
    });
  }

  /** POST /authenticate/mfa: answers the session's MFA query. */
  authenticate(identity: Identity, session: Pick<ApiSession, 'id'>, code: string): Promise<void> {
    return this.oneAtATime(identity, async () => {
      const mfa = this.find(identity.id);
      if (!mfa || !mfa.isVerified) throw new EdgeError('MFA_NOT_ENROLLED', { code: 'MFA_NOT_ENROLLED', message: 'the identity has no verified MFA enrollment' });
      const proof = await this.prove(identity, mfa, code, 'totp-or-recovery');
      await this.writer.write({ type: 'mfa.authenticate', identityId: identity.id, proof, at: this.now(), apiSessionId: session.id });
    });
  }

  /** GET /mfa/recovery-codes: the current list, for a TOTP code. */
  readRecoveryCodes(identity: Identity, code: string): Promise<{ mfa: Mfa; recoveryCodes: string[] }> {
    return this.oneAtATime(identity, async () => {
      const mfa = this.requireVerified(identity);
      const proof = await this.prove(identity, mfa, code, 'totp');
      // Reading the list uses the code up, like any other answer: it cannot be replayed.
      await this.writer.write({ type: 'mfa.authenticate', identityId: identity.id, proof, at: this.now() });
      return { mfa: this.find(identity.id) ?? mfa, recoveryCodes: this.recoveryCodesOf(mfa) };
    });
  }

  /** POST /mfa/recovery-codes: 20 new codes replace the list, for a TOTP or recovery code. */
  replaceRecoveryCodes(identity: Identity, code: string): Promise<string[]> {
    return this.oneAtATime(identity, async () => {
      const mfa = this.requireVerified(identity);
      const proof = await this.prove(identity, mfa, code, 'totp-or-recovery');
      const codes = newRecoveryCodes();
      await this.writer.write({
        type: 'mfa.replaceRecoveryCodes',
        identityId: identity.id,
        proof,
        at: this.now(),
        recoveryCodes: this.box.seal(JSON.stringify(codes), identity.id),
        recoveryCodeHashes: codes.map((recovery) => hashRecoveryCode(this.box.hashKey, recovery)),
      });
      return codes;
    });
  }

  /** The QR code of the provisioning URL while enrollment is outstanding. */
  async qrCode(identity: Identity): Promise<Buffer> {
    const mfa = this.require(identity);
    if (mfa.isVerified) throw EdgeError.notFound('mfa enrollment in progress', identity.id);
    return qrCodePng(this.provisioningUrlOf(identity, mfa));
  }

  /** An admin removes any identity's enrollment. */
  async adminRemove(identityId: string): Promise<void> {
    if (!this.find(identityId)) throw EdgeError.notFound('mfa', identityId);
    await this.writer.write({ type: 'mfa.delete', identityId });
  }

  /** What a code proves, or MFA_INVALID_TOKEN (a failure that counts toward the identity's code limit). */
  private async prove(identity: Identity, mfa: Mfa, code: string, kinds: CodeKinds): Promise<MfaProof> {
    const trimmed = code.trim();
    const now = this.clock.now();
    const step = matchTotp(this.box.open(mfa.secret, identity.id), trimmed, now);
    if (step !== undefined) {
      if (step <= mfa.lastAcceptedStep) return this.fail(identity, 'the TOTP code was already used');
      return { totpStep: step };
    }
    if (kinds === 'totp-or-recovery') {
      const recoveryHash = findRecoveryCode(this.box.hashKey, trimmed, mfa.recoveryCodeHashes);
      if (recoveryHash) return { recoveryHash };
    }
    return this.fail(identity, trimmed === '' ? 'no code was given' : kinds === 'totp' && /^[A-Za-z2-7]{6}$/.test(trimmed) && !/^[0-9]+$/.test(trimmed) ? 'a recovery code is not accepted here' : 'the code does not match');
  }

  private async fail(identity: Identity, reason: string): Promise<never> {
    this.logger.info('mfa code refused', { identityId: identity.id, reason });
    this.onCodeFailure();
    const limit = this.limitFor(identity);
    try {
      const written = await this.writer.write<{ locked: boolean }>({ type: 'mfa.failed', identityId: identity.id, at: this.now(), maxAttempts: limit.maxAttempts, lockoutMinutes: limit.lockoutMinutes });
      if (written.value.locked) this.logger.warn('identity locked after failed MFA codes', { identityId: identity.id, attempts: limit.maxAttempts, lockoutDurationMinutes: limit.lockoutMinutes });
    } catch (error) {
      this.logger.warn('could not record a failed MFA code', { identityId: identity.id, error: (error as Error).message });
    }
    throw new EdgeError('MFA_INVALID_TOKEN', { field: 'code', reason }).withRefusal({ reason, identityId: identity.id });
  }

  /** The policy's lockout when it is the tighter one (its duration too: 0 is until an admin enables), else this controller's code limit. */
  private limitFor(identity: Identity): { maxAttempts: number; lockoutMinutes: number } {
    const rules = this.policies.forIdentity(identity).primary.updb;
    if (rules.maxAttempts > 0 && rules.maxAttempts <= this.codeLimit.maxFailedCodes) return { maxAttempts: rules.maxAttempts, lockoutMinutes: rules.lockoutDurationMinutes };
    return { maxAttempts: this.codeLimit.maxFailedCodes, lockoutMinutes: this.codeLimit.lockoutMs / 60_000 };
  }

  /** Runs an identity's code check after the ones before it; an identity locked meanwhile (its sessions ended) is refused. */
  private oneAtATime<T>(identity: Identity, check: () => Promise<T>): Promise<T> {
    return this.checks.run(identity.id, async () => {
      const current = this.store.table<Identity>(tables.identities).get(identity.id);
      if (!current || isIdentityDisabled(current, this.clock.now())) throw new EdgeError('UNAUTHORIZED', undefined, 'the identity was locked or disabled while its MFA code waited');
      return check();
    });
  }

  private require(identity: Identity): Mfa {
    const mfa = this.find(identity.id);
    if (!mfa) throw EdgeError.notFound('mfa', identity.id);
    return mfa;
  }

  private requireVerified(identity: Identity): Mfa {
    const mfa = this.require(identity);
    if (!mfa.isVerified) throw EdgeError.notFound('verified mfa', identity.id);
    return mfa;
  }

  private provisioningUrlOf(identity: Identity, mfa: Mfa): string {
    return provisioningUrl(this.issuer, identity.name, this.box.open(mfa.secret, identity.id));
  }

  private recoveryCodesOf(mfa: Mfa): string[] {
    const codes = JSON.parse(this.box.open(mfa.recoveryCodes, mfa.identityId)) as string[];
    // The sealed list still holds used codes; only the unused ones are shown.
    return codes.filter((code) => mfa.recoveryCodeHashes.includes(hashRecoveryCode(this.box.hashKey, code)));
  }

  private now(): string {
    return isoTime(this.clock.now());
  }
}
