// The secondary factors a new session owes under its identity's auth policy, as authQueries elements. A session
// with any outstanding is partially authenticated.
import type { ExternalJwtSignerService } from '../edge/ext-jwt-signer-service.ts';
import type { AuthPolicy, AuthQuery, ExternalJwtSigner } from '../model/entities.ts';

export function authQueriesFor(policy: AuthPolicy, signers: Pick<ExternalJwtSignerService, 'find'>): { queries: AuthQuery[]; secondarySigner?: ExternalJwtSigner } {
  const queries: AuthQuery[] = [];
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
