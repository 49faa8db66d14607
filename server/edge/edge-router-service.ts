// Edge routers: their management operations and their enrollment. A router is created with a one-time enrollment
// whose JWT an operator hands to the router; the router redeems it once (`/enroll/erott`) with two CSRs and gets a
// client certificate (CN = its id; the only certificate its control channel is accepted with) and a server
// certificate with the DNS and IP names it asked for, when it may hold every one of them (pki/router-server-names.ts:
// no controller's name, no wildcard, none on another router's server certificate); else nothing is signed. Both
// certificates carry the SPIFFE id `spiffe://<trustDomain>/router/<id>` when the signing CA declares a trust domain.
// Re-enrolling makes a new enrollment and forgets the old certificates. Every check here that depends on other rows
// is repeated by the apply, in log order.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../common/time/clock.ts';
import { fingerprintOfPem } from '../auth/cert/certificate-fingerprint.ts';
import { serverNameHeldByAnother, serverNameTakenCause, type EdgeRouterSettings, type RouterEnrollment } from '../model/router-commands.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { routerTables } from '../model/router-entities.ts';
import { signCertificateRequest } from '../../common/pki/client-certificate.ts';
import { PkiError } from '../../common/pki/pki-error.ts';
import { requestedSubjectAltNames } from '../../common/pki/requested-names.ts';
import { checkRouterServerNames, controllerNamesOf, type ControllerNameSources } from '../../common/pki/router-server-names.ts';
import { formatSpiffeId, trustDomainOf } from '../../common/pki/spiffe-id.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import { signEnrollmentJwt } from './enrollment-jwt.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import { isJtiRevoked, revokedTokenReason } from '../model/revocation-commands.ts';

export type { EdgeRouterSettings } from '../model/router-commands.ts';

export interface RouterEnrollmentSettings {
  /** The enrollment CA (edge.enrollment.signingCert) that signs routers' certificates. */
  readonly signer?: { readonly certPem: string; readonly keyPem: string };
  /** This controller's identity key: signs the enrollment JWTs. */
  readonly jwtKey: { readonly keyPem: string };
  /** The JWT's issuer: this controller's client API origin. */
  readonly issuer: string;
  /** Every client API origin (`ctrls`). */
  readonly controllers: readonly string[];
  /** The cluster members' control addresses (`tls:<host>:<port>`) now: the JWT's `ctrlAddresses`. */
  readonly controlAddresses: () => readonly string[];
  /** edge.enrollment.edgeRouter.duration */
  readonly durationMs: number;
  /** Handed to an enrolled router so it can trust the controllers. */
  readonly caBundlePem: string;
  /**
   * The controllers' certificates and addresses now, whose names no router may hold; the control addresses,
   * `controllers` and `issuer` above count too.
   */
  readonly controllerNames?: () => ControllerNameSources;
}

export interface RouterEnrollmentRequest {
  readonly certCsr: string;
  readonly serverCertCsr: string;
}

export interface RouterCertificates {
  /** The client certificate and its issuer, PEM. */
  readonly cert: string;
  /** The server certificate and its issuer, PEM. */
  readonly serverCert: string;
  readonly ca: string;
}

export class EdgeRouterService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly settings: RouterEnrollmentSettings,
  ) {}

  list(): EdgeRouter[] {
    return this.store.table<EdgeRouter>(routerTables.edgeRouters).all();
  }

  find(id: string): EdgeRouter | undefined {
    return this.store.table<EdgeRouter>(routerTables.edgeRouters).get(id);
  }

  get(id: string): EdgeRouter {
    const router = this.find(id);
    if (!router) throw EdgeError.notFound('edge router', id);
    return router;
  }

  /** An edge router (not a transit router: `/edge-routers` does not show those), or 404. */
  getEdge(id: string): EdgeRouter {
    const router = this.find(id);
    if (!router || router.isTransitRouter) throw EdgeError.notFound('edge router', id);
    return router;
  }

  /** `kind` transit: a router without the edge (`/routers`, `/transit-routers`), enrolled the same way. */
  async create(settings: EdgeRouterSettings, kind: 'edge' | 'transit' = 'edge'): Promise<{ id: string }> {
    const id = newEntityId();
    const enrollment = await this.newEnrollment(id);
    const router: EdgeRouter = {
      ...settings,
      id,
      createdAt: enrollment.createdAt,
      updatedAt: enrollment.createdAt,
      isVerified: false,
      fingerprint: null,
      certPem: null,
      enrollmentToken: enrollment.token,
      enrollmentJwt: enrollment.jwt,
      enrollmentCreatedAt: enrollment.createdAt,
      enrollmentExpiresAt: enrollment.expiresAt,
      ...(kind === 'transit' ? { isTransitRouter: true } : {}),
    };
    this.checkUnique(router);
    const written = await this.writer.write<{ id: string }>({ type: 'edgeRouter.create', router });
    return { id: written.value.id };
  }

  async update(id: string, settings: EdgeRouterSettings): Promise<void> {
    const current = this.get(id);
    this.checkUnique({ ...current, ...settings });
    await this.writer.write({ type: 'edgeRouter.update', id, at: this.now(), settings });
  }

  async delete(id: string): Promise<void> {
    this.get(id);
    await this.writer.write({ type: 'edgeRouter.delete', id });
  }

  /** A new one-time enrollment; the enrolled certificate stops being accepted once this is applied. */
  async reEnroll(id: string): Promise<void> {
    this.get(id);
    const enrollment = await this.newEnrollment(id);
    await this.writer.write({ type: 'edgeRouter.reEnroll', id, at: enrollment.createdAt, enrollment });
  }

  /** `/enroll/erott`: signs the router's two CSRs and records the client certificate's fingerprint. */
  async enroll(token: string, request: RouterEnrollmentRequest): Promise<RouterCertificates> {
    const router = this.redeemable(token);
    const signer = this.settings.signer;
    if (!signer) throw new EdgeError('INVALID_ENROLLMENT_TOKEN', { field: 'token', reason: 'this controller has no enrollment signing CA' });
    const sign = async <T>(field: 'certCsr' | 'serverCertCsr', work: () => Promise<T>): Promise<T> => {
      try {
        return await work();
      } catch (error) {
        if (error instanceof PkiError) throw new EdgeError('COULD_NOT_PROCESS_CSR', { field, reason: error.message });
        throw error;
      }
    };
    // Every name is judged before anything is signed: a refused name means no certificate at all.
    const names = await sign('serverCertCsr', async () => this.grantedServerNames(router.id, request.serverCertCsr));
    const spiffeId = routerSpiffeId(signer.certPem, router.id);
    // The router's id is both certificates' common name, as the real controller issues them.
    const client = await sign('certCsr', () => signCertificateRequest(signer, request.certCsr, { commonName: router.id, usage: 'client', ...spiffeId, clock: this.clock }));
    const server = await sign('serverCertCsr', () =>
      signCertificateRequest(signer, request.serverCertCsr, {
        commonName: router.id,
        usage: 'server',
        dnsNames: [...names.dnsNames],
        ipAddresses: [...names.ipAddresses],
        ...spiffeId,
        clock: this.clock,
      }),
    );
    const at = this.now();
    await this.writer.write({
      type: 'edgeRouter.enroll',
      id: router.id,
      token,
      at,
      fingerprint: fingerprintOfPem(client.certPem),
      certPem: client.certPem,
      serverFingerprint: fingerprintOfPem(server.certPem),
      serverNames: names.claimed,
    });
    return { cert: client.chainPem, serverCert: server.chainPem, ca: this.settings.caBundlePem };
  }

  /** The server certificate's names, when the router may hold every one; else COULD_NOT_PROCESS_CSR naming the first refused. */
  private grantedServerNames(routerId: string, serverCertCsr: string): { dnsNames: readonly string[]; ipAddresses: readonly string[]; claimed: readonly string[] } {
    const extra = this.settings.controllerNames?.() ?? { certificates: [], addresses: [] };
    const controllers = controllerNamesOf({
      certificates: extra.certificates,
      addresses: [...extra.addresses, ...this.settings.controlAddresses(), ...this.settings.controllers, this.settings.issuer],
    });
    const check = checkRouterServerNames(requestedSubjectAltNames(serverCertCsr), controllers);
    if (!check.ok) throw new EdgeError('COULD_NOT_PROCESS_CSR', { field: 'serverCertCsr', reason: check.reason, value: check.name });
    const taken = serverNameHeldByAnother(this.list(), routerId, check.claimed);
    if (taken !== undefined) throw new EdgeError('COULD_NOT_PROCESS_CSR', serverNameTakenCause(taken));
    return check;
  }

  private redeemable(token: string): EdgeRouter {
    const router = token ? this.store.table<EdgeRouter>(routerTables.edgeRouters).findUnique('enrollmentToken', token) : undefined;
    if (!router || router.enrollmentExpiresAt === null) throw new EdgeError('INVALID_ENROLLMENT_TOKEN', { field: 'token', reason: 'the enrollment token is unknown or already used' });
    if (Date.parse(router.enrollmentExpiresAt) <= this.clock.now()) throw new EdgeError('INVALID_ENROLLMENT_TOKEN', { field: 'token', reason: 'the enrollment token expired' });
    // Checked again in log order when redeemed; refused here before a certificate is signed for it.
    if (isJtiRevoked(this.store, token, isoTime(this.clock.now()))) throw new EdgeError('INVALID_ENROLLMENT_TOKEN', { field: 'token', reason: revokedTokenReason });
    return router;
  }

  private async newEnrollment(routerId: string): Promise<RouterEnrollment> {
    if (!this.settings.signer) {
      throw EdgeError.validation('enrollment', 'edge router enrollment needs an enrollment signing CA: set edge.enrollment.signingCert in the controller config');
    }
    const now = this.clock.now();
    const expiresAtMs = now + this.settings.durationMs;
    // 256 random bits: the token alone lets its holder become the router.
    const token = randomBytes(32).toString('base64url');
    const jwt = await signEnrollmentJwt(this.settings.jwtKey.keyPem, {
      issuer: this.settings.issuer,
      subject: routerId,
      token,
      method: 'erott',
      controllers: this.settings.controllers,
      issuedAtMs: now,
      expiresAtMs,
      extra: { ctrlAddresses: [...this.settings.controlAddresses()] },
    });
    return { token, jwt, createdAt: new Date(now).toISOString(), expiresAt: new Date(expiresAtMs).toISOString() };
  }

  private checkUnique(router: EdgeRouter): void {
    const violation = this.store.table<EdgeRouter>(routerTables.edgeRouters).violationFor(router);
    if (violation) throw EdgeError.validation(violation.index, violation.message, violation.value);
  }

  private now(): string {
    return isoTime(this.clock.now());
  }
}

/** `{spiffeId}` naming the router in the signing CA's trust domain; none when the CA declares no trust domain. */
function routerSpiffeId(signerCertPem: string, routerId: string): { spiffeId?: string } {
  const trustDomain = trustDomainOf(signerCertPem);
  if (trustDomain === undefined) return {};
  try {
    return { spiffeId: formatSpiffeId({ trustDomain, kind: 'router', id: routerId }) };
  } catch {
    // An id that is no SPIFFE path segment (not one this controller makes): the common name alone names the router.
    return {};
  }
}
