// The edge model routers are sent (edge-model-snapshot.ts), read once per applied raft index instead of once per
// reader. Every welcome sends a router the whole model, and every terminator registration checks what the router may
// host against it: with thousands of routers arriving together, rebuilding it each time (every service, config,
// policy and router, sorted) was most of the controller's work. The model at an index never changes, so the cache
// holds exactly what a fresh read would give and goes stale only when something is applied; keyed by the index,
// it needs no invalidation hook (a snapshot installed on a follower moves the index too).
import type { EdgeModel } from '../../common/control-channel/control-messages.ts';
import { hostedServices, hostV1TypeName, type HostableService } from '../../common/control-channel/hosted-services.ts';
import type { EdgeModelPolicy } from '../../common/control-channel/control-messages.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { edgeModelOf, type ModelReader } from './edge-model-snapshot.ts';

export class EdgeModelCache {
  private current: { index: number; model: EdgeModel } | undefined;
  private hosting: { index: number; services: HostableService[]; binds: EdgeModelPolicy[] } | undefined;

  constructor(
    private readonly store: ModelReader,
    private readonly findRouter: (id: string) => EdgeRouter | undefined,
  ) {}

  /** The edge model at the store's applied index (the same object until the index moves). */
  edgeModel(): { index: number; model: EdgeModel } {
    const index = this.store.appliedIndex();
    if (this.current?.index !== index) this.current = edgeModelOf(this.store);
    return this.current;
  }

  /** serviceId → terminator address for the services this router may host (hostedServicesOf, from the cached model). */
  hostedServices(routerId: string): Map<string, string> {
    const index = this.store.appliedIndex();
    if (this.hosting?.index !== index) {
      const { model } = this.edgeModel();
      this.hosting = {
        index,
        services: model.services.map((service) => ({ id: service.id, roleAttributes: service.roleAttributes, hostV1: service.configs?.[hostV1TypeName] })),
        binds: (model.servicePolicies ?? []).filter((policy) => policy.type === 'Bind'),
      };
    }
    return hostedServices(this.findRouter(routerId), this.hosting.services, this.hosting.binds);
  }
}
