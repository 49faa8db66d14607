// The fields the service, config, config-type, service-policy, posture-check and session lists can filter and sort on.
import type { FieldCatalogue } from '../query/list-query.ts';
import type { Config, ConfigType } from '../../model/config-entities.ts';
import type { PostureCheck, Service, ServicePolicy, ServiceSession } from '../../model/service-entities.ts';

const base = <T extends { id: string; createdAt: string; updatedAt: string }>() => ({
  id: { type: 'string' as const, get: (row: T) => row.id },
  createdAt: { type: 'datetime' as const, get: (row: T) => row.createdAt },
  updatedAt: { type: 'datetime' as const, get: (row: T) => row.updatedAt },
});

export const serviceCatalogue: FieldCatalogue<Service> = {
  ...base<Service>(),
  name: { type: 'string', get: (row) => row.name },
  roleAttributes: { type: 'string[]', get: (row) => row.roleAttributes },
  terminatorStrategy: { type: 'string', get: (row) => row.terminatorStrategy },
  encryptionRequired: { type: 'boolean', get: (row) => row.encryptionRequired },
  maxIdleTimeMillis: { type: 'number', get: (row) => row.maxIdleTimeMillis },
};

export const servicePolicyCatalogue: FieldCatalogue<ServicePolicy> = {
  ...base<ServicePolicy>(),
  name: { type: 'string', get: (row) => row.name },
  type: { type: 'string', get: (row) => row.type },
  semantic: { type: 'string', get: (row) => row.semantic },
  identityRoles: { type: 'string[]', get: (row) => row.identityRoles },
  serviceRoles: { type: 'string[]', get: (row) => row.serviceRoles },
  postureCheckRoles: { type: 'string[]', get: (row) => row.postureCheckRoles },
};

export const postureCheckCatalogue: FieldCatalogue<PostureCheck> = {
  ...base<PostureCheck>(),
  name: { type: 'string', get: (row) => row.name },
  typeId: { type: 'string', get: (row) => row.typeId },
  roleAttributes: { type: 'string[]', get: (row) => row.roleAttributes },
  version: { type: 'number', get: (row) => row.version },
};

export const serviceSessionCatalogue: FieldCatalogue<ServiceSession> = {
  ...base<ServiceSession>(),
  type: { type: 'string', get: (row) => row.type },
  serviceId: { type: 'string', get: (row) => row.serviceId },
  apiSessionId: { type: 'string', get: (row) => row.apiSessionId },
  identityId: { type: 'string', get: (row) => row.identityId },
};

export const configTypeCatalogue: FieldCatalogue<ConfigType> = {
  ...base<ConfigType>(),
  name: { type: 'string', get: (row) => row.name },
  target: { type: 'string', get: (row) => row.target },
};

export const configCatalogue: FieldCatalogue<Config> = {
  ...base<Config>(),
  name: { type: 'string', get: (row) => row.name },
  configTypeId: { type: 'string', get: (row) => row.configTypeId },
  /** The real controller's store calls the config's type field `type`. */
  type: { type: 'string', get: (row) => row.configTypeId },
};
