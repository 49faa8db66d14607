// API-session certificates (`/current-api-session/certificates`): an identity logged in without a certificate (a
// password, an external JWT) sends a CSR and gets a short-lived client certificate for its identity, signed by the
// enrollment (edge) signer, to open edge router connections with, as OpenZiti's controller issues them (12 hours,
// controller/internal/routes/current_api_session_router.go). The certificate is recorded on the API session row
// (fingerprint, validity, chain) through a raft command, so every controller knows it, and it ends with the
// session: a router or controller that sees it on a TLS connection asks `findByFingerprint`, which answers only
// while the session lives and the certificate is in its validity.
import type { Clock } from '../../common/time/clock.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import type { CertificateIssuer } from '../../common/pki/certificate-signer.ts';
import { signCertificateRequest } from '../../common/pki/client-certificate.ts';
import { PkiError } from '../../common/pki/pki-error.ts';
import { trustDomainOf } from '../../common/pki/spiffe-id.ts';
import { parseCertificate } from '../../common/pki/x509-runtime.ts';
import { fingerprintOfPem } from '../auth/cert/certificate-fingerprint.ts';
import type { ApiSession, ApiSessionCertificate } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';

/** As OpenZiti's controller: an API-session certificate lives 12 hours. */
export const apiSessionCertificateLifetimeMs = 12 * 60 * 60_000;
/** Unexpired certificates one API session may hold at once. */
export const maxCertificatesPerApiSession = 16;

export interface ApiSessionCertificateSettings {
  /** The enrollment (edge) signer; without one, no certificate is issued. */
  readonly signer?: CertificateIssuer;
  /** The CA bundle sent with each certificate (`cas`). */
  readonly caBundlePem: string;
}

/** What a TLS client certificate proves when it is a live API session's. */
export interface ApiSessionCertificateHolder {
  readonly identityId: string;
  readonly apiSessionId: string;
  readonly certificate: ApiSessionCertificate;
}

export class ApiSessionCertificates {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly settings: ApiSessionCertificateSettings,
  ) {}

  /** The session's certificates still in their validity, oldest first. */
  list(session: ApiSession): ApiSessionCertificate[] {
    const now = isoTime(this.clock.now());
    return (this.current(session).certificates ?? []).filter((certificate) => certificate.validTo > now);
  }

  /** One of the session's own certificates; another session's, or an expired one, is NOT_FOUND. */
  get(session: ApiSession, id: string): ApiSessionCertificate {
    const found = this.list(session).find((certificate) => certificate.id === id);
    if (!found) throw new EdgeError('NOT_FOUND');
    return found;
  }

  /** Signs the CSR's key for the session's identity and records the certificate on the session. */
  async create(session: ApiSession, csrPem: string): Promise<{ certificate: ApiSessionCertificate; cas: string }> {
    const signer = this.settings.signer;
    if (!signer) throw new EdgeError('COULD_NOT_PROCESS_CSR', { field: 'csr', reason: 'this controller has no enrollment signing CA to issue certificates with' });
    if (this.list(session).length >= maxCertificatesPerApiSession) {
      throw EdgeError.validation('csr', `this API session already holds ${maxCertificatesPerApiSession} unexpired certificates, the most it may: delete one first (DELETE /current-api-session/certificates/{id})`);
    }
    const id = newEntityId();
    const trustDomain = trustDomainOf(signer.certPem);
    let signed;
    try {
      signed = await signCertificateRequest(signer, csrPem, {
        // The identity id is the common name, whatever the CSR asked, as enrollment certificates have it.
        commonName: session.identityId,
        usage: 'client',
        validityMs: apiSessionCertificateLifetimeMs,
        ...(trustDomain ? { spiffeId: `spiffe://${trustDomain}/identity/${session.identityId}/apiSession/${session.id}/apiSessionCertificate/${id}` } : {}),
        clock: this.clock,
      });
    } catch (error) {
      if (error instanceof PkiError) throw new EdgeError('COULD_NOT_PROCESS_CSR', { field: 'csr', reason: error.message });
      throw error;
    }
    const leaf = parseCertificate(signed.certPem);
    const at = isoTime(this.clock.now());
    const certificate: ApiSessionCertificate = {
      id,
      createdAt: at,
      subject: `CN=${session.identityId}`,
      fingerprint: fingerprintOfPem(signed.certPem),
      validFrom: leaf.notBefore.toISOString(),
      validTo: leaf.notAfter.toISOString(),
      certificate: signed.chainPem,
    };
    await this.writer.write({ type: 'apiSession.addCertificate', id: session.id, at, certificate, max: maxCertificatesPerApiSession });
    return { certificate, cas: this.settings.caBundlePem };
  }

  async delete(session: ApiSession, id: string): Promise<void> {
    this.get(session, id);
    await this.writer.write({ type: 'apiSession.removeCertificate', id: session.id, certificateId: id });
  }

  /**
   * The live API session a client certificate was issued to, by its SHA-1 fingerprint: undefined once the session
   * ended, the certificate was deleted, or its validity passed. For routers and controllers that meet it on TLS.
   */
  findByFingerprint(fingerprint: string): ApiSessionCertificateHolder | undefined {
    const now = isoTime(this.clock.now());
    const wanted = fingerprint.toLowerCase();
    for (const session of this.store.table<ApiSession>(tables.apiSessions).all()) {
      const certificate = session.certificates?.find((candidate) => candidate.fingerprint === wanted);
      if (certificate) return certificate.validTo > now && certificate.validFrom <= now ? { identityId: session.identityId, apiSessionId: session.id, certificate } : undefined;
    }
    return undefined;
  }

  /** The stored row (the request's copy may predate a certificate added since). */
  private current(session: ApiSession): ApiSession {
    return this.store.table<ApiSession>(tables.apiSessions).get(session.id) ?? session;
  }
}
