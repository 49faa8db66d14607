// The edge data model a router is sent: services (with their configs, by config type name), service policies and
// edge routers, with names and role attributes, read from the local store at its applied raft index (a
// router keeps the highest index it has seen). The policies and routers let a router work out which services its
// own identity may Bind (common/control-channel/hosted-services.ts); the controller checks what it registers against
// the same rows (hostedServicesOf below). Identities are not in it: routers have no use for them, and with them
// every identity created or changed re-sent the whole model to every router (tens of MB each at a million).
import type { EdgeModel, EdgeModelPolicy, EdgeModelRouter, EdgeModelService } from '../../common/control-channel/control-messages.ts';
import { hostedServices, hostV1TypeName } from '../../common/control-channel/hosted-services.ts';
import { builtinConfigTypes } from '../model/builtin-config-types.ts';
import type { Config, ConfigType } from '../model/config-entities.ts';
import { configTables } from '../model/config-entities.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { routerTables } from '../model/router-entities.ts';
import type { Service, ServicePolicy } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';

export interface ModelReader {
  table<T extends { id: string }>(name: string): { all(): T[] };
  appliedIndex(): number;
}

/** The tables whose changes make a new edge model (and may change what a router hosts). */
export const edgeModelTables: ReadonlySet<string> = new Set([
  serviceTables.services,
  serviceTables.servicePolicies,
  configTables.configs,
  configTables.configTypes,
  routerTables.edgeRouters,
]);

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** config type id → name, the built-in types and the model's. */
export function configTypeNames(store: ModelReader): Map<string, string> {
  const typeNames = new Map<string, string>(builtinConfigTypes.map((type) => [type.id, type.name]));
  for (const type of store.table<ConfigType>(configTables.configTypes).all()) typeNames.set(type.id, type.name);
  return typeNames;
}

/** A service's configs as the model has them: config type name → data. */
export function serviceConfigsOf(service: Service, configById: (id: string) => Config | undefined, typeNames: ReadonlyMap<string, string>): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  for (const id of service.configs ?? []) {
    const config = configById(id);
    const name = config ? typeNames.get(config.configTypeId) : undefined;
    if (config && name !== undefined) map[name] = config.data;
  }
  return map;
}

/** service id → config type name → data. */
function serviceConfigs(store: ModelReader, services: readonly Service[]): Map<string, Record<string, unknown>> {
  const typeNames = configTypeNames(store);
  const configs = new Map(store.table<Config>(configTables.configs).all().map((config) => [config.id, config]));
  return new Map(services.map((service) => [service.id, serviceConfigsOf(service, (id) => configs.get(id), typeNames)]));
}

export function serviceEntry(service: Service, configs: Record<string, unknown>): EdgeModelService {
  return { id: service.id, name: service.name, roleAttributes: [...service.roleAttributes], configs };
}

export function servicePolicyEntry(policy: ServicePolicy): EdgeModelPolicy {
  return { id: policy.id, type: policy.type, semantic: policy.semantic, identityRoles: [...policy.identityRoles], serviceRoles: [...policy.serviceRoles] };
}

export function edgeRouterEntry(router: EdgeRouter): EdgeModelRouter {
  return { id: router.id, name: router.name, roleAttributes: [...router.roleAttributes], isTunnelerEnabled: router.isTunnelerEnabled, ...(router.disabled ? { disabled: true } : {}) };
}

export function edgeModelOf(store: ModelReader): { index: number; model: EdgeModel } {
  const services = store.table<Service>(serviceTables.services).all().sort(byId);
  const configs = serviceConfigs(store, services);
  return {
    index: store.appliedIndex(),
    model: {
      services: services.map((service) => serviceEntry(service, configs.get(service.id) ?? {})),
      servicePolicies: store.table<ServicePolicy>(serviceTables.servicePolicies).all().sort(byId).map(servicePolicyEntry),
      edgeRouters: store.table<EdgeRouter>(routerTables.edgeRouters).all().sort(byId).map(edgeRouterEntry),
    },
  };
}

/** serviceId → terminator address for the services this router may host, from the controller's model. */
export function hostedServicesOf(store: ModelReader, routerId: string): Map<string, string> {
  const router = store.table<EdgeRouter>(routerTables.edgeRouters).all().find((row) => row.id === routerId);
  const services = store.table<Service>(serviceTables.services).all();
  const configs = serviceConfigs(store, services);
  return hostedServices(
    router,
    services.map((service) => ({ id: service.id, roleAttributes: service.roleAttributes, hostV1: configs.get(service.id)?.[hostV1TypeName] })),
    store.table<ServicePolicy>(serviceTables.servicePolicies).all(),
  );
}
