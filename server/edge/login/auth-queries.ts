// The secondary factors a new session owes under its identity's auth policy, as authQueries elements. A session
// with any outstanding is partially authenticated.
import type { ExternalJwtSignerService } from '../ext-jwt-signer-service.ts';
import type { AuthPolicy, AuthQuery, ExternalJwtSigner } from '../../model/entities.ts';

/** The TOTP challenge, answered at POST /authenticate/mfa. */
export const mfaAuthQuery: AuthQuery = {
  typeId: 'MFA',
  provider: 'ziti',
  format: 'numeric',
  httpMethod: 'POST',
  httpUrl: './authenticate/mfa',
  minLength: 6,
  maxLength: 6,
};

/** A verified TOTP enrollment, or a policy requiring TOTP, means an MFA query; a required signer, an EXT-JWT one. */
export function authQueriesFor(policy: AuthPolicy, signers: Pick<ExternalJwtSignerService, 'find'>, mfaEnrolled: boolean): { queries: AuthQuery[]; secondarySigner?: ExternalJwtSigner } {
  const queries: AuthQuery[] = [];
  if (mfaEnrolled || policy.secondary.requireTotp) queries.push(mfaAuthQuery);
  const signerId = policy.secondary.requireExtJwtSigner;
  const signer = signerId === null ? undefined : signers.find(signerId);
  if (signerId !== null) {
    queries.push({
      typeId: 'EXT-JWT',
      provider: 'url',
      httpUrl: signer?.externalAuthUrl ?? '',
      clientId: signer?.clientId ?? '',
      scopes: [...(signer?.scopes ?? [])],
      id: signerId,
      issuer: signer?.issuer ?? '',
    });
  }
  return signer ? { queries, secondarySigner: signer } : { queries };
}
