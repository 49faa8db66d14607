// A third-party CA's auto-enrollment JWT (`GET /cas/{id}/jwt`), as the real controller issues it: enrollment method
// `em: "ca"`, subject and `jti` the CA's id, issued by the client API's address, naming every client API origin in
// `ctrls`, and signed with the controller's identity key as enrollment JWTs are (enrollment-jwt.ts). Its claims are
// static (no expiry, no issue time): it only tells an enroller where the network is and which CA it is for; an
// identity enrolls by presenting a certificate that CA signed.
import { SignJWT } from 'jose';
import type { CaService } from './ca-service.ts';
import { jwtAlgorithm, privateKeyOf } from './enrollment-jwt.ts';

export interface CaJwtOptions {
  readonly keyPem: string;
  /** `https://host:port` of the client API. */
  readonly issuer: string;
  /** Every client API origin. */
  readonly controllers: readonly string[];
}

export class CaJwtIssuer {
  constructor(
    private readonly cas: Pick<CaService, 'get'>,
    private readonly options: CaJwtOptions,
  ) {}

  /** The JWT of CA `id`; NOT_FOUND for an unknown CA. */
  async jwtOf(id: string): Promise<string> {
    const ca = this.cas.get(id);
    const { keyPem, issuer, controllers } = this.options;
    return new SignJWT({ em: 'ca', ctrls: [...controllers] })
      .setProtectedHeader({ alg: jwtAlgorithm(keyPem), typ: 'JWT' })
      .setIssuer(issuer)
      .setSubject(ca.id)
      .setAudience('')
      .setJti(ca.id)
      .sign(privateKeyOf(keyPem));
  }
}
