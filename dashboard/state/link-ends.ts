// The router at the other end of each link, as an operator wants it: named. A router's health check names the far
// end's id; a link only the controllers' reports show (no health check configured) is matched by its id with the
// other router that reports the same link, since both ends of a link carry its id. Pure: views in, views out.
import type { RouterLinkView, RouterView } from './snapshot.ts';

export function withLinkEnds(views: readonly RouterView[]): RouterView[] {
  const names = new Map(views.map((view) => [view.id, view.name]));
  const holders = new Map<string, string[]>();
  for (const view of views) for (const link of view.links) holders.set(link.id, [...(holders.get(link.id) ?? []), view.id]);
  return views.map((view) => ({
    ...view,
    links: view.links.map((link): RouterLinkView => {
      const destRouterId = link.destRouterId ?? holders.get(link.id)?.find((holder) => holder !== view.id);
      if (destRouterId === undefined) return link;
      const destRouterName = names.get(destRouterId);
      return { ...link, destRouterId, ...(destRouterName === undefined ? {} : { destRouterName }) };
    }),
  }));
}
