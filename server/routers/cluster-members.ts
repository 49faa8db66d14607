// The cluster as routers see it: every member of the raft configuration (voters, then non-voters) with its control
// address, this controller included. A member whose address is not known yet is left out: a router cannot dial it.
import type { ControllerEndpoint } from '../../common/control-channel/control-messages.ts';
import type { Configuration } from '../raft/core/types.ts';

export function clusterMembers(configuration: Configuration, self: ControllerEndpoint): ControllerEndpoint[] {
  const members: ControllerEndpoint[] = [];
  for (const id of [...configuration.voters, ...configuration.nonVoters]) {
    const address = configuration.addresses?.[id] ?? (id === self.id ? self.address : undefined);
    if (address) members.push({ id, address });
  }
  // A controller not yet in any configuration (a new node) still tells its routers about itself.
  if (!members.some((member) => member.id === self.id)) members.push({ id: self.id, address: self.address });
  return members;
}

export function sameMembers(a: readonly ControllerEndpoint[], b: readonly ControllerEndpoint[]): boolean {
  return a.length === b.length && a.every((member, index) => member.id === b[index]!.id && member.address === b[index]!.address);
}
