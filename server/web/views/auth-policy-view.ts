// The auth-policy detail representation.
import type { AuthPolicy } from '../../model/entities.ts';
import { link } from './links.ts';

export function authPolicyView(policy: AuthPolicy) {
  return {
    id: policy.id,
    createdAt: policy.createdAt,
    updatedAt: policy.updatedAt,
    tags: policy.tags,
    _links: { self: link(`./auth-policies/${policy.id}`) },
    name: policy.name,
    primary: policy.primary,
    secondary: policy.secondary,
  };
}
