// The posture-check detail representation: the common fields and those of the check's type (management.yml
// postureCheck*Detail).
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
    ...kindFields(check),
  };
}

function kindFields(check: PostureCheck) {
  switch (check.typeId) {
    case 'OS': return { operatingSystems: check.operatingSystems ?? [] };
    case 'MAC': return { macAddresses: check.macAddresses ?? [] };
    case 'DOMAIN': return { domains: check.domains ?? [] };
    case 'PROCESS': return { process: check.process };
    case 'PROCESS_MULTI': return { semantic: check.semantic, processes: check.processes ?? [] };
    default: return { timeoutSeconds: check.timeoutSeconds, promptOnWake: check.promptOnWake, promptOnUnlock: check.promptOnUnlock, ignoreLegacyEndpoints: check.ignoreLegacyEndpoints };
  }
}
