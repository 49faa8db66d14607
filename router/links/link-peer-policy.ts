// Which routers may hold a link with this one, by the edge model the controller last sent: a router the model lists
// and does not mark disabled. A deleted router (absent) or a disabled one is refused on new links, and its live
// links are closed. A model without its `edgeRouters` list (a controller from before it) refuses no one. Pure.
import type { EdgeModel } from '../../common/control-channel/control-messages.ts';

/** Why `routerId` may not be a link peer, or undefined when it may. */
export type LinkPeerPolicy = (routerId: string) => string | undefined;

export const anyLinkPeer: LinkPeerPolicy = () => undefined;

export function linkPeerPolicyOf(model: EdgeModel): LinkPeerPolicy {
  const routers = model.edgeRouters;
  if (!Array.isArray(routers)) return anyLinkPeer;
  const disabled = new Map<string, boolean>();
  for (const router of routers) if (router && typeof router.id === 'string') disabled.set(router.id, router.disabled === true);
  return (routerId) => {
    const isDisabled = disabled.get(routerId);
    if (isDisabled === undefined) return 'the router is not an edge router of the network (deleted)';
    return isDisabled ? 'the router is disabled' : undefined;
  };
}
