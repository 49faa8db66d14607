// `service.terminators` (edgeward_service_terminators): the terminators of each service by binding that the routers
// connected to this controller hold, so that summed over the controllers it is the cluster's. Every service of the
// model has a series for the `edge` binding (SDK-hosted terminators), 0 while it has none: an alert can then tell a
// service whose SDK hosts all left (0 now, more before) from one that was deleted (no series). Pure.
import type { TerminatorRecord } from '../edge/terminator-directory.ts';

export interface ServiceTerminatorSeries {
  readonly value: number;
  readonly attributes: { readonly service_id: string; readonly service_name: string; readonly binding: string };
}

/** The binding of SDK-hosted terminators (OpenZiti's `edge`), always given a series. */
export const sdkBinding = 'edge';

export function serviceTerminatorSeries(services: ReadonlyArray<{ readonly id: string; readonly name: string }>, terminators: readonly TerminatorRecord[]): ServiceTerminatorSeries[] {
  const names = new Map(services.map((service) => [service.id, service.name]));
  const counts = new Map<string, { serviceId: string; binding: string; count: number }>();
  for (const service of services) counts.set(`${service.id}\n${sdkBinding}`, { serviceId: service.id, binding: sdkBinding, count: 0 });
  for (const terminator of terminators) {
    // A terminator of a service the model no longer has goes with the next model check; it is not counted.
    if (!names.has(terminator.serviceId)) continue;
    const key = `${terminator.serviceId}\n${terminator.binding}`;
    const entry = counts.get(key) ?? { serviceId: terminator.serviceId, binding: terminator.binding, count: 0 };
    entry.count++;
    counts.set(key, entry);
  }
  return [...counts.values()].map((entry) => ({ value: entry.count, attributes: { service_id: entry.serviceId, service_name: names.get(entry.serviceId) ?? '', binding: entry.binding } }));
}
