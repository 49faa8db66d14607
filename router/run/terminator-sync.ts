// Which terminators the router registers with the controller, and the messages that keep the controller's view in
// step. A router with a tunnel listener hosts services: every mode does (`host` is the reverse proxy of Bind-able
// services; `proxy` and `tproxy` include host behaviour). From each edge model it is sent it works out the services
// its own identity may Bind that carry a host.v1 config with a fixed address (common/control-channel/
// hosted-services.ts) and sends removes for what went and creates for all it hosts (creates are idempotent, and a
// controller that refused one because its model was behind the router's accepts it once it has caught up), in
// messages of at most terminatorLimits.maxPerMessage; after a welcome it starts over (a controller forgets an earlier
// channel's terminators). Pure: edge models in, messages out.
import type { EdgeModel, RouterTerminatorCreate, RouterTerminatorRemove } from '../../common/control-channel/control-messages.ts';
import { hostedServices, hostV1TypeName, terminatorLimits } from '../../common/control-channel/hosted-services.ts';
import type { ListenerConfig } from '../config/router-config.ts';

/** Whether the listeners host services: any tunnel listener, whatever its mode. */
export function hostsServices(listeners: readonly ListenerConfig[]): boolean {
  return listeners.some((listener) => listener.binding === 'tunnel');
}

/** serviceId → terminator address: what this router hosts by this edge model. */
export function hostedByModel(routerId: string, model: EdgeModel): Map<string, string> {
  const router = model.edgeRouters?.find((row) => row.id === routerId);
  const services = model.services.map((service) => ({ id: service.id, roleAttributes: service.roleAttributes, hostV1: service.configs?.[hostV1TypeName] }));
  return hostedServices(router, services, model.servicePolicies ?? []);
}

export type TerminatorMessage = RouterTerminatorCreate | RouterTerminatorRemove;

export class TerminatorSync {
  /** What the controller was told on this channel: serviceId → address. */
  private sent = new Map<string, string>();
  private wanted = new Map<string, string>();

  constructor(
    private readonly routerId: string,
    private readonly hosting: boolean,
  ) {}

  /** What the router hosts by the latest model (serviceId → address). */
  get hosted(): ReadonlyMap<string, string> {
    return this.wanted;
  }

  /** A new model: the messages that bring the controller from what it was told to what the model lets this router host. */
  modelChanged(model: EdgeModel): TerminatorMessage[] {
    this.wanted = this.hosting ? hostedByModel(this.routerId, model) : new Map();
    return this.diff(true);
  }

  /** A new channel (welcomed): the controller knows nothing yet, so every terminator is sent again. */
  welcomed(): TerminatorMessage[] {
    this.sent = new Map();
    return this.diff();
  }

  private diff(all = false): TerminatorMessage[] {
    const removed = [...this.sent.keys()].filter((serviceId) => !this.wanted.has(serviceId));
    const created = [...this.wanted].filter(([serviceId, address]) => all || this.sent.get(serviceId) !== address).map(([serviceId, address]) => ({ serviceId, address }));
    const messages: TerminatorMessage[] = [];
    for (const ids of chunks(removed)) messages.push({ type: 'router.terminator.remove', serviceIds: ids });
    for (const terminators of chunks(created)) messages.push({ type: 'router.terminator.create', terminators });
    this.sent = new Map(this.wanted);
    return messages;
  }
}

function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += terminatorLimits.maxPerMessage) result.push(items.slice(start, start + terminatorLimits.maxPerMessage));
  return result;
}
