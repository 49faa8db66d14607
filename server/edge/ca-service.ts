// Third-party CAs: an admin registers a CA certificate, proves the CA's key is theirs by presenting a certificate
// it signed whose common name is the CA's verification token, then the CA's certificates may authenticate
// (isAuthEnabled) and, with isAutoCaEnrollmentEnabled, enroll new identities on first use.
import type { Clock } from '../../common/time/clock.ts';
import { CaCertificateError, parseCaCertificate, verifyCaPossession } from '../auth/cert/ca-certificate.ts';
import { validateIdentityNameFormat } from '../auth/cert/identity-name-template.ts';
import type { CaChanges } from '../model/commands.ts';
import type { Ca } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { isoTime } from '../../common/time/iso-time.ts';

export const defaultIdentityNameFormat = '[caName]-[commonName]';

export interface CaInput {
  readonly name: string;
  readonly certPem: string;
  readonly isAutoCaEnrollmentEnabled: boolean;
  readonly isOttCaEnrollmentEnabled: boolean;
  readonly isAuthEnabled: boolean;
  readonly identityRoles: readonly string[];
  readonly identityNameFormat?: string | null;
  readonly externalIdClaim?: Readonly<Record<string, unknown>> | null;
  readonly tags?: Readonly<Record<string, unknown>> | null;
}

export class CaService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
  ) {}

  list(): Ca[] {
    return this.store.table<Ca>(tables.cas).all();
  }

  get(id: string): Ca {
    const ca = this.store.table<Ca>(tables.cas).get(id);
    if (!ca) throw EdgeError.notFound('ca', id);
    return ca;
  }

  /** CAs whose certificates may authenticate now: verified and enabled. */
  trusted(): Ca[] {
    return this.list().filter((ca) => ca.isVerified && ca.isAuthEnabled);
  }

  async create(input: CaInput): Promise<{ id: string }> {
    let parsed;
    try {
      parsed = parseCaCertificate(input.certPem);
    } catch (error) {
      if (error instanceof CaCertificateError) throw EdgeError.validation('certPem', error.message);
      throw error;
    }
    const at = this.now();
    const ca: Ca = {
      id: newEntityId(),
      createdAt: at,
      updatedAt: at,
      tags: input.tags ?? {},
      name: input.name,
      certPem: parsed.certPem,
      fingerprint: parsed.fingerprint,
      isVerified: false,
      verificationToken: newEntityId(),
      isAutoCaEnrollmentEnabled: input.isAutoCaEnrollmentEnabled,
      isOttCaEnrollmentEnabled: input.isOttCaEnrollmentEnabled,
      isAuthEnabled: input.isAuthEnabled,
      identityRoles: [...input.identityRoles],
      identityNameFormat: this.nameFormat(input.identityNameFormat),
      externalIdClaim: input.externalIdClaim ?? null,
    };
    this.checkUnique(ca);
    const written = await this.writer.write<{ id: string }>({ type: 'ca.create', ca });
    return { id: written.value.id };
  }

  /** PUT and PATCH change the settings; the certificate of a CA never changes. */
  async update(id: string, input: Partial<Omit<CaInput, 'certPem'>>, mode: 'put' | 'patch'): Promise<void> {
    const current = this.get(id);
    const has = (key: keyof Omit<CaInput, 'certPem'>) => mode === 'put' || input[key] !== undefined;
    const changes: { -readonly [K in keyof CaChanges]: CaChanges[K] } = {};
    if (has('name') && input.name !== undefined) changes.name = input.name;
    if (has('isAutoCaEnrollmentEnabled') && input.isAutoCaEnrollmentEnabled !== undefined) changes.isAutoCaEnrollmentEnabled = input.isAutoCaEnrollmentEnabled;
    if (has('isOttCaEnrollmentEnabled') && input.isOttCaEnrollmentEnabled !== undefined) changes.isOttCaEnrollmentEnabled = input.isOttCaEnrollmentEnabled;
    if (has('isAuthEnabled') && input.isAuthEnabled !== undefined) changes.isAuthEnabled = input.isAuthEnabled;
    if (has('identityRoles')) changes.identityRoles = [...(input.identityRoles ?? [])];
    if (has('identityNameFormat')) changes.identityNameFormat = this.nameFormat(input.identityNameFormat);
    if (has('externalIdClaim')) changes.externalIdClaim = input.externalIdClaim ?? null;
    if (has('tags')) changes.tags = input.tags ?? {};
    this.checkUnique({ ...current, ...changes });
    await this.writer.write({ type: 'ca.update', id, at: this.now(), changes });
  }

  async delete(id: string): Promise<void> {
    this.get(id);
    await this.writer.write({ type: 'ca.delete', id });
  }

  /** Proof of possession: a PEM certificate signed by the CA whose common name is the verification token. */
  async verify(id: string, proofPem: string): Promise<void> {
    const ca = this.get(id);
    if (ca.isVerified) throw new EdgeError('CA_ALREADY_VERIFIED', { code: 'CA_ALREADY_VERIFIED', message: `ca ${id} is already verified` });
    const result = verifyCaPossession(ca.certPem, proofPem, ca.verificationToken, this.clock.now());
    if (!result.ok) throw new EdgeError(result.code, { field: 'certificate', reason: result.reason });
    await this.writer.write({ type: 'ca.verify', id, at: this.now() });
  }

  private nameFormat(format: string | null | undefined): string {
    if (format === undefined || format === null || format === '') return defaultIdentityNameFormat;
    const problem = validateIdentityNameFormat(format);
    if (problem) throw EdgeError.validation('identityNameFormat', problem, format);
    return format;
  }

  private checkUnique(ca: Ca): void {
    const violation = this.store.table<Ca>(tables.cas).violationFor(ca);
    if (!violation) return;
    const field = violation.index === 'fingerprint' ? 'certPem' : violation.index;
    const reason = violation.index === 'fingerprint' ? 'a CA with this certificate is already registered' : violation.message;
    throw EdgeError.validation(field, reason, violation.value);
  }

  private now(): string {
    return isoTime(this.clock.now());
  }
}
