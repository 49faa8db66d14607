// One-time enrollments. An admin asks for one (`ott`: the client sends a CSR and gets a certificate signed by the
// controller's enrollment CA; `updb`: the client chooses its password); the identity's detail carries a JWT with
// the token; the client redeems it once before it expires. The redeeming command re-checks the token in log
// order, so a token cannot be used twice even through two controllers at once.
import { randomBytes } from 'node:crypto';
import { jwtAlgorithm, privateKeyOf } from './enrollment-jwt.ts';
import { SignJWT } from 'jose';
import type { Clock } from '../../common/time/clock.ts';
import { hashPassword } from '../auth/password-hasher.ts';
import { fingerprintOfPem } from '../auth/cert/certificate-fingerprint.ts';
import type { Authenticator, Enrollment, EnrollmentMethod, Identity } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import { signCertificateRequest } from '../../common/pki/client-certificate.ts';
import { PkiError } from '../../common/pki/pki-error.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import type { AuthenticatorService } from './authenticator-service.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import { isJtiRevoked, revokedTokenReason } from '../model/revocation-commands.ts';

export interface EnrollmentSettings {
  /** The CA that signs enrolled clients' certificates (edge.enrollment.signingCert); ott needs it. */
  readonly signer?: { readonly certPem: string; readonly keyPem: string };
  /** Signs the enrollment JWTs: this controller's own identity key, whose certificate clients see over TLS. */
  readonly jwtKey: { readonly certPem: string; readonly keyPem: string };
  /** `https://host:port` of this controller's client API: the JWT's issuer, where clients enroll. */
  readonly issuer: string;
  readonly controllers: readonly string[];
  readonly identityDurationMs: number;
  /** The CA bundle handed to enrolled clients so they can trust the controller. */
  readonly caBundlePem: string;
}

export interface EnrollmentCerts {
  readonly cert: string;
  readonly ca: string;
}

export class EnrollmentService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly authenticators: AuthenticatorService,
    private readonly settings: EnrollmentSettings,
  ) {}

  list(): Enrollment[] {
    return this.store.table<Enrollment>(tables.enrollments).all();
  }

  forIdentity(identityId: string): Enrollment[] {
    return this.store.table<Enrollment>(tables.enrollments).findMany('identityId', identityId);
  }

  get(id: string): Enrollment {
    const enrollment = this.store.table<Enrollment>(tables.enrollments).get(id);
    if (!enrollment) throw EdgeError.notFound('enrollment', id);
    return enrollment;
  }

  /** Builds an enrollment row (with its signed JWT) for an identity that may not be written yet. */
  async prepare(identity: Pick<Identity, 'id'>, method: EnrollmentMethod, options: { username?: string; expiresAt?: number } = {}): Promise<Enrollment> {
    if (method === 'ott' && !this.settings.signer) {
      throw EdgeError.validation('enrollment', 'ott enrollment needs an enrollment signing CA: set edge.enrollment.signingCert in the controller config');
    }
    if (method === 'updb') {
      if (!options.username) throw EdgeError.validation('enrollment.updb', 'updb enrollment needs a username');
      if (this.authenticators.findByUsername(options.username)) {
        throw EdgeError.validation('enrollment.updb', `duplicate value '${options.username}' in unique index on authenticators store`, options.username);
      }
    }
    const now = this.clock.now();
    const expiresAtMs = options.expiresAt ?? now + this.settings.identityDurationMs;
    if (expiresAtMs <= now) throw EdgeError.validation('expiresAt', 'expiresAt must be in the future', new Date(expiresAtMs).toISOString());
    // 256 random bits: the token alone lets its holder become the identity.
    const token = randomBytes(32).toString('base64url');
    const at = new Date(now).toISOString();
    const jwt = await new SignJWT({ em: method, ctrls: [...this.settings.controllers], ...(method === 'updb' ? { username: options.username } : {}) })
      .setProtectedHeader({ alg: jwtAlgorithm(this.settings.jwtKey.keyPem), typ: 'JWT' })
      .setIssuer(this.settings.issuer)
      .setSubject(identity.id)
      .setAudience('')
      .setJti(token)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(expiresAtMs / 1000))
      .sign(privateKeyOf(this.settings.jwtKey.keyPem));
    return {
      id: newEntityId(),
      createdAt: at,
      updatedAt: at,
      tags: {},
      method,
      identityId: identity.id,
      token,
      jwt,
      expiresAt: new Date(expiresAtMs).toISOString(),
      username: method === 'updb' ? options.username! : null,
    };
  }

  async create(identityId: string, method: EnrollmentMethod, options: { username?: string; expiresAt?: number } = {}): Promise<{ id: string }> {
    const identity = this.store.table<Identity>(tables.identities).get(identityId);
    if (!identity) throw EdgeError.validation('identityId', `identity with id ${identityId} not found`, identityId);
    const now = this.clock.now();
    if (this.forIdentity(identityId).some((existing) => existing.method === method && Date.parse(existing.expiresAt) > now)) {
      throw new EdgeError('ENROLLMENT_EXISTS', { field: 'method', reason: `identity already has an enrollment of method ${method}`, value: method });
    }
    const authenticatorMethod = method === 'ott' ? 'cert' : 'updb';
    if (this.authenticators.forIdentity(identityId).some((existing) => existing.method === authenticatorMethod)) {
      throw EdgeError.validation('method', `identity already has a ${authenticatorMethod} authenticator: delete it before enrolling again`, method);
    }
    const enrollment = await this.prepare(identity, method, options);
    const written = await this.writer.write<{ id: string }>({ type: 'enrollment.create', enrollment });
    return { id: written.value.id };
  }

  /**
   * For an expired or unexpired enrollment: a new expiry and a new JWT with a new one-time token, as the real
   * controller's refresh; the old JWT no longer enrolls.
   */
  async refresh(id: string, expiresAtMs: number): Promise<{ id: string }> {
    const enrollment = this.get(id);
    const identity = this.store.table<Identity>(tables.identities).get(enrollment.identityId);
    if (!identity) throw EdgeError.notFound('identity', enrollment.identityId);
    const fresh = await this.prepare(identity, enrollment.method, { ...(enrollment.username ? { username: enrollment.username } : {}), expiresAt: expiresAtMs });
    const written = await this.writer.write<{ id: string }>({ type: 'enrollment.refresh', id, token: fresh.token, jwt: fresh.jwt, expiresAt: fresh.expiresAt, at: fresh.updatedAt });
    return { id: written.value.id };
  }

  async delete(id: string): Promise<void> {
    this.get(id);
    await this.writer.write({ type: 'enrollment.delete', id });
  }

  /** What `/enroll` does with a token: dispatches on the enrollment's method. */
  methodOf(token: string): EnrollmentMethod {
    return this.redeemable(token).method;
  }

  /** ott: certifies the CSR's key for the identity and makes it the identity's cert authenticator. */
  async enrollOtt(token: string, csrPem: string): Promise<EnrollmentCerts> {
    const enrollment = this.redeemable(token, 'ott');
    const signer = this.settings.signer;
    if (!signer) throw new EdgeError('INVALID_ENROLLMENT_TOKEN', { field: 'token', reason: 'this controller has no enrollment signing CA' });
    let signed;
    try {
      // The identity id is the certificate's common name, as the real controller issues them.
      signed = await signCertificateRequest(signer, csrPem, { commonName: enrollment.identityId, usage: 'client', clock: this.clock });
    } catch (error) {
      if (error instanceof PkiError) throw new EdgeError('COULD_NOT_PROCESS_CSR', { field: 'csr', reason: error.message });
      throw error;
    }
    const at = isoTime(this.clock.now());
    const authenticator: Authenticator = {
      id: newEntityId(),
      createdAt: at,
      updatedAt: at,
      tags: {},
      method: 'cert',
      identityId: enrollment.identityId,
      fingerprint: fingerprintOfPem(signed.certPem),
      certPem: signed.certPem,
      isIssuedByNetwork: true,
      caId: null,
    };
    await this.writer.write({ type: 'enrollment.complete', id: enrollment.id, token, at, authenticator });
    return { cert: signed.chainPem, ca: this.settings.caBundlePem };
  }

  /** updb: the client picks its password (under its policy's rules) for the username the admin chose. */
  async enrollUpdb(token: string, password: string): Promise<void> {
    const enrollment = this.redeemable(token, 'updb');
    const identity = this.store.table<Identity>(tables.identities).get(enrollment.identityId);
    this.authenticators.checkPasswordRules(password, identity);
    const at = isoTime(this.clock.now());
    const authenticator: Authenticator = {
      id: newEntityId(),
      createdAt: at,
      updatedAt: at,
      tags: {},
      method: 'updb',
      identityId: enrollment.identityId,
      username: enrollment.username ?? enrollment.identityId,
      password: await hashPassword(password),
    };
    await this.writer.write({ type: 'enrollment.complete', id: enrollment.id, token, at, authenticator });
  }

  private redeemable(token: string, method?: EnrollmentMethod): Enrollment {
    const enrollment = token ? this.store.table<Enrollment>(tables.enrollments).findUnique('token', token) : undefined;
    if (!enrollment) throw new EdgeError('INVALID_ENROLLMENT_TOKEN', { field: 'token', reason: 'the enrollment token is unknown or already used' });
    if (method && enrollment.method !== method) {
      throw new EdgeError('INVALID_ENROLLMENT_TOKEN', { field: 'token', reason: `the token is for ${enrollment.method} enrollment, not ${method}` });
    }
    if (Date.parse(enrollment.expiresAt) <= this.clock.now()) throw new EdgeError('INVALID_ENROLLMENT_TOKEN', { field: 'token', reason: 'the enrollment token expired' });
    // Checked again in log order when redeemed; refused here before a certificate is signed for it.
    if (isJtiRevoked(this.store, token, isoTime(this.clock.now()))) throw new EdgeError('INVALID_ENROLLMENT_TOKEN', { field: 'token', reason: revokedTokenReason });
    return enrollment;
  }
}
