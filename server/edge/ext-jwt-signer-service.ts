// External JWT signers: issuers whose JWTs authenticate identities (primary `ext-jwt`) or stand as a secondary
// factor. A signer's key comes from its certificate or from its JWKS endpoint, never both.
import { X509Certificate } from 'node:crypto';
import type { Clock } from '../../common/time/clock.ts';
import type { EntityBody } from '../model/commands.ts';
import type { AuthPolicy, ExternalJwtSigner } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { isoTime } from '../../common/time/iso-time.ts';

/** What a client sends: the derived certificate facts are filled in here. */
export type ExternalJwtSignerInput = Omit<EntityBody<ExternalJwtSigner>, 'commonName' | 'fingerprint' | 'notBefore' | 'notAfter'>;

export class ExternalJwtSignerService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
  ) {}

  list(): ExternalJwtSigner[] {
    return this.store.table<ExternalJwtSigner>(tables.externalJwtSigners).all();
  }

  enabled(): ExternalJwtSigner[] {
    return this.list().filter((signer) => signer.enabled);
  }

  find(id: string): ExternalJwtSigner | undefined {
    return this.store.table<ExternalJwtSigner>(tables.externalJwtSigners).get(id);
  }

  get(id: string): ExternalJwtSigner {
    const signer = this.find(id);
    if (!signer) throw EdgeError.notFound('external jwt signer', id);
    return signer;
  }

  async create(input: ExternalJwtSignerInput): Promise<{ id: string }> {
    const at = this.now();
    const signer: ExternalJwtSigner = { ...this.complete(input), id: newEntityId(), createdAt: at, updatedAt: at };
    this.checkName(signer);
    const written = await this.writer.write<{ id: string }>({ type: 'extJwtSigner.create', signer });
    return { id: written.value.id };
  }

  async update(id: string, input: ExternalJwtSignerInput): Promise<void> {
    const current = this.get(id);
    const signer = this.complete(input);
    this.checkName({ ...current, ...signer });
    await this.writer.write({ type: 'extJwtSigner.update', id, at: this.now(), signer });
  }

  async delete(id: string): Promise<void> {
    this.get(id);
    const user = this.store
      .table<AuthPolicy>(tables.authPolicies)
      .all()
      .find((policy) => policy.primary.extJwt.allowedSigners.includes(id) || policy.secondary.requireExtJwtSigner === id);
    if (user) throw new EdgeError('CAN_NOT_DELETE_REFERENCED_ENTITY', { field: 'authPolicy', reason: `the signer is referenced by auth policy ${user.id}`, value: user.id });
    await this.writer.write({ type: 'extJwtSigner.delete', id });
  }

  /** Checks the key source and derives the certificate's facts. */
  private complete(input: ExternalJwtSignerInput): EntityBody<ExternalJwtSigner> {
    const hasCert = typeof input.certPem === 'string' && input.certPem.trim() !== '';
    const hasJwks = typeof input.jwksEndpoint === 'string' && input.jwksEndpoint.trim() !== '';
    if (hasCert === hasJwks) throw EdgeError.validation(hasCert ? 'jwksEndpoint' : 'certPem', 'exactly one of certPem and jwksEndpoint must be given');
    const claimsProperty = (input.claimsProperty ?? '').trim() === '' ? 'sub' : input.claimsProperty.trim();
    const derived = { commonName: null as string | null, fingerprint: null as string | null, notBefore: null as string | null, notAfter: null as string | null };
    if (hasCert) {
      let certificate: X509Certificate;
      try {
        certificate = new X509Certificate(input.certPem!);
      } catch (error) {
        throw EdgeError.validation('certPem', `certPem is not a PEM certificate: ${(error as Error).message}`);
      }
      derived.commonName = /(?:^|\n)CN=([^\n]*)/.exec(certificate.subject)?.[1] ?? '';
      derived.fingerprint = certificate.fingerprint.replaceAll(':', '').toLowerCase();
      derived.notBefore = new Date(certificate.validFrom).toISOString();
      derived.notAfter = new Date(certificate.validTo).toISOString();
    } else {
      let url: URL;
      try {
        url = new URL(input.jwksEndpoint!);
      } catch {
        throw EdgeError.validation('jwksEndpoint', 'jwksEndpoint must be an absolute https URL', input.jwksEndpoint);
      }
      if (url.protocol !== 'https:') throw EdgeError.validation('jwksEndpoint', 'jwksEndpoint must use https', input.jwksEndpoint);
    }
    return {
      ...input,
      certPem: hasCert ? input.certPem!.trim() + '\n' : null,
      jwksEndpoint: hasJwks ? input.jwksEndpoint!.trim() : null,
      claimsProperty,
      ...derived,
    };
  }

  private checkName(signer: ExternalJwtSigner | EntityBody<ExternalJwtSigner> & { id?: string }): void {
    const clash = this.store.table<ExternalJwtSigner>(tables.externalJwtSigners).findUnique('name', signer.name);
    if (clash && clash.id !== (signer as { id?: string }).id) {
      throw EdgeError.validation('name', `duplicate value '${signer.name}' in unique index on externalJwtSigners store`, signer.name);
    }
  }

  private now(): string {
    return isoTime(this.clock.now());
  }
}
