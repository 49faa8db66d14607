// The identity detail representation of the Edge Management API (no secrets). Every property the spec requires is
// present, so a generated client accepts it: `permissions` (none are granted apart from isAdmin) is an empty list.
import type { Authenticator, Enrollment, Identity } from '../../model/entities.ts';
import { identityEnrollmentsView } from './enrollment-view.ts';
import { defaultAuthPolicy } from '../../edge/default-auth-policy.ts';
import { entityRef, link } from './links.ts';

export interface IdentityFacts {
  readonly authenticators: readonly Authenticator[];
  readonly enrollments?: readonly Enrollment[];
  readonly hasApiSession: boolean;
  /** One of its API sessions holds an SDK edge channel on a router of the cluster (false when unknown). */
  readonly hasEdgeRouterConnection?: boolean;
  readonly authPolicyName?: string;
  /** A verified TOTP enrollment. */
  readonly isMfaEnabled?: boolean;
  readonly now: number;
}

export function identityView(identity: Identity, facts: IdentityFacts) {
  const updb = facts.authenticators.find((authenticator) => authenticator.method === 'updb');
  const cert = facts.authenticators.find((authenticator) => authenticator.method === 'cert');
  const disabled = identity.disabledAt !== null && (identity.disabledUntil === null || Date.parse(identity.disabledUntil) > facts.now);
  return {
    id: identity.id,
    createdAt: identity.createdAt,
    updatedAt: identity.updatedAt,
    tags: identity.tags,
    _links: {
      self: link(`./identities/${identity.id}`),
      'auth-policies': link(`./auth-policies/${identity.authPolicyId}`),
      authenticators: link(`./identities/${identity.id}/authenticators`),
    },
    name: identity.name,
    type: entityRef('identity-types', identity.typeId, identity.typeId),
    typeId: identity.typeId,
    isAdmin: identity.isAdmin,
    isDefaultAdmin: identity.isDefaultAdmin,
    isMfaEnabled: facts.isMfaEnabled ?? false,
    disabled,
    disabledAt: identity.disabledAt,
    disabledUntil: identity.disabledUntil,
    authPolicyId: identity.authPolicyId,
    authPolicy: entityRef('auth-policies', identity.authPolicyId, facts.authPolicyName ?? (identity.authPolicyId === defaultAuthPolicy.id ? defaultAuthPolicy.name : identity.authPolicyId)),
    externalId: identity.externalId,
    roleAttributes: identity.roleAttributes,
    authenticators: {
      ...(updb?.method === 'updb' ? { updb: { id: updb.id, username: updb.username } } : {}),
      ...(cert?.method === 'cert' ? { cert: { id: cert.id, fingerprint: cert.fingerprint } } : {}),
    },
    enrollment: identityEnrollmentsView(facts.enrollments ?? []),
    envInfo: {},
    sdkInfo: {},
    hasApiSession: facts.hasApiSession,
    hasEdgeRouterConnection: facts.hasEdgeRouterConnection ?? false,
    edgeRouterConnectionStatus: facts.hasEdgeRouterConnection ? 'online' : 'offline',
    appData: {},
    defaultHostingPrecedence: 'default',
    defaultHostingCost: 0,
    serviceHostingPrecedences: {},
    serviceHostingCosts: {},
    permissions: [],
  };
}
