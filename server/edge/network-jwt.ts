// The network JWT (`GET /network-jwts`): what a client or tunneler is given to find the network and trust it before
// it has any identity, as OpenZiti's `default` network JWT is. Signed with the controller's identity key (the key
// of the certificate it serves over TLS, as enrollment JWTs are: enrollment-jwt.ts), issued by the client API's
// address, naming every client API origin in `ctrls`, method `network`. It carries no secret and grants nothing,
// so it has no expiry and no one-time token.
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Clock } from '../../common/time/clock.ts';
import { jwtAlgorithm, privateKeyOf } from './enrollment-jwt.ts';

export interface NetworkJwtOptions {
  readonly keyPem: string;
  /** `https://host:port` of the client API. */
  readonly issuer: string;
  /** Every client API origin. */
  readonly controllers: readonly string[];
  /** This controller's id: the JWT's subject. */
  readonly controllerId: string;
}

export class NetworkJwtIssuer {
  constructor(
    private readonly options: NetworkJwtOptions,
    private readonly clock: Clock,
  ) {}

  /** The network JWTs: one, named `default`. */
  async list(): Promise<Array<{ name: string; token: string }>> {
    const { keyPem, issuer, controllers, controllerId } = this.options;
    const token = await new SignJWT({ em: 'network', ctrls: [...controllers] })
      .setProtectedHeader({ alg: jwtAlgorithm(keyPem), typ: 'JWT' })
      .setIssuer(issuer)
      .setSubject(controllerId)
      .setAudience('')
      .setJti(randomUUID())
      .setIssuedAt(Math.floor(this.clock.now() / 1000))
      .sign(privateKeyOf(keyPem));
    return [{ name: 'default', token }];
  }
}
