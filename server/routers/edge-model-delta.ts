// The edge model's changes between two pushes to routers, as a `ctrl.edgeModelDelta`: which rows changed is learnt
// from the applied model changes (ids only); their values are read from the store when the delta is made, so a row
// changed twice is sent once, as it is now. A config changes its services' rows; a config type's rename changes
// any service's, so it (and a snapshot installed under the model) makes the next push a whole model.
import type { CtrlEdgeModelDelta, EdgeModelRowsChange } from '../../common/control-channel/control-messages.ts';
import type { Config } from '../model/config-entities.ts';
import { configTables } from '../model/config-entities.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { routerTables } from '../model/router-entities.ts';
import type { Service, ServicePolicy } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { EntityChange } from '../store/model-store.ts';
import { configTypeNames, edgeRouterEntry, serviceConfigsOf, serviceEntry, servicePolicyEntry, type ModelReader } from './edge-model-snapshot.ts';

export interface RowReader extends ModelReader {
  table<T extends { id: string }>(name: string): { all(): T[]; get(id: string): T | undefined };
}

/** Past this many changed rows a delta is no cheaper than the whole model: the whole one goes. */
export const maxDeltaRows = 10_000;

/** Ids of the edge model's rows changed since the last push. */
export class EdgeModelChanges {
  private readonly services = new Set<string>();
  private readonly servicePolicies = new Set<string>();
  private readonly edgeRouters = new Set<string>();
  private readonly configs = new Set<string>();
  private wholeModel = false;

  note(change: EntityChange): void {
    const set = this.setFor(change.entityType);
    if (set) set.add(change.id);
    else if (change.entityType === configTables.configTypes) this.wholeModel = true;
  }

  /** The model was replaced under the listeners (a snapshot installed): the ids changed are not known. */
  replaced(): void {
    this.wholeModel = true;
  }

  get size(): number {
    return this.services.size + this.servicePolicies.size + this.edgeRouters.size + this.configs.size;
  }

  /**
   * The delta from `fromIndex` to the store's state at `index`, or undefined when only the whole model will do;
   * either way the changes are taken (the next delta starts from `index`).
   */
  take(store: RowReader, fromIndex: number, index: number): CtrlEdgeModelDelta | undefined {
    const whole = this.wholeModel || this.size > maxDeltaRows || fromIndex >= index;
    const delta = whole ? undefined : this.deltaOf(store, fromIndex, index);
    this.services.clear();
    this.servicePolicies.clear();
    this.edgeRouters.clear();
    this.configs.clear();
    this.wholeModel = false;
    return delta;
  }

  private deltaOf(store: RowReader, fromIndex: number, index: number): CtrlEdgeModelDelta {
    const services = store.table<Service>(serviceTables.services);
    const serviceIds = new Set(this.services);
    if (this.configs.size > 0) {
      for (const service of services.all()) if (service.configs?.some((id) => this.configs.has(id))) serviceIds.add(service.id);
    }
    const configs = store.table<Config>(configTables.configs);
    const typeNames = serviceIds.size > 0 ? configTypeNames(store) : new Map<string, string>();
    return {
      type: 'ctrl.edgeModelDelta',
      fromIndex,
      index,
      ...part('services', serviceIds, (id) => {
        const service = services.get(id);
        return service && serviceEntry(service, serviceConfigsOf(service, (configId) => configs.get(configId), typeNames));
      }),
      ...part('servicePolicies', this.servicePolicies, (id) => {
        const policy = store.table<ServicePolicy>(serviceTables.servicePolicies).get(id);
        return policy && servicePolicyEntry(policy);
      }),
      ...part('edgeRouters', this.edgeRouters, (id) => {
        const router = store.table<EdgeRouter>(routerTables.edgeRouters).get(id);
        return router && edgeRouterEntry(router);
      }),
    };
  }

  private setFor(entityType: string): Set<string> | undefined {
    if (entityType === serviceTables.services) return this.services;
    if (entityType === serviceTables.servicePolicies) return this.servicePolicies;
    if (entityType === routerTables.edgeRouters) return this.edgeRouters;
    if (entityType === configTables.configs) return this.configs;
    return undefined;
  }
}

/** `{[name]: {upserted, deleted}}` for the ids (a row no longer there is deleted), or nothing when there are none. */
function part<K extends string, T extends { id: string }>(name: K, ids: ReadonlySet<string>, read: (id: string) => T | undefined): { [P in K]?: EdgeModelRowsChange<T> } {
  if (ids.size === 0) return {};
  const upserted: T[] = [];
  const deleted: string[] = [];
  for (const id of [...ids].sort()) {
    const row = read(id);
    if (row) upserted.push(row);
    else deleted.push(id);
  }
  return { [name]: { upserted, deleted } } as unknown as { [P in K]?: EdgeModelRowsChange<T> };
}
