// The posture-check detail representation (MFA checks only).
import type { PostureCheck } from '../../model/service-entities.ts';
import { link } from './links.ts';

export function postureCheckView(check: PostureCheck) {
  return {
    id: check.id,
    createdAt: check.createdAt,
    updatedAt: check.updatedAt,
    tags: check.tags,
    _links: { self: link(`./posture-checks/${check.id}`) },
    name: check.name,
    typeId: check.typeId,
    version: check.version,
    roleAttributes: check.roleAttributes,
    timeoutSeconds: check.timeoutSeconds,
    promptOnWake: check.promptOnWake,
    promptOnUnlock: check.promptOnUnlock,
    ignoreLegacyEndpoints: check.ignoreLegacyEndpoints,
  };
}
