// Each ingress router's shortest-path tree, kept between circuits while the link graph and the set of routers the
// paths must avoid stay the same, so a plan reads its path in O(path length) instead of searching thousands of
// routers (13 ms a plan at 5,000 routers for a service hosted on 49 spread routers). A tree is keyed by its start and
// by the object that stands for its excluded routers (a service's service edge router grant: a new grant object is
// made whenever the policies or routers behind it change, so a changed excluded set is a new key, never a stale tree).
// Every change of a link in the graph is shown to every tree, and a tree is dropped when the change could alter any of
// its paths (cheapestPaths' rules, ties included):
// - the link was on the tree (it went down, moved, or its cost changed): dropped;
// - the link is new or cheaper and joins a router the tree reaches to one it does not reach, or would reach a router
//   at a lower cost, or at the same cost by a lower link id: dropped;
// - otherwise (a link off the tree got dearer or went down; a link between routers the tree does not reach) no path
//   changes: Dijkstra's answer for each router is the cheapest of its links in, and a link that was not the cheapest
//   and got no cheaper cannot become it (link costs are never negative).
// Bounded: the least recently used tree goes past `pathTreeLimit`. Pure: no clock, no I/O.
import type { PathTree } from './circuit-paths.ts';

/** Trees kept at most (each holds a cost and a link per router it reaches: ~1 MB at 5,000 routers). */
export const pathTreeLimit = 64;

/** A link of the graph as it joins two routers (a < b) at a cost, before or after a change. */
export interface GraphLink {
  readonly a: string;
  readonly b: string;
  readonly cost: number;
}

interface KeptTree {
  readonly from: string;
  readonly excluded: (router: string) => boolean;
  readonly tree: PathTree;
}

export class PathTreeCache {
  private readonly trees = new Map<string, KeptTree>();
  private readonly exclusionIds = new WeakMap<object, number>();
  private nextExclusionId = 0;
  /** Trees searched (a test tells a kept tree from a new search). */
  searches = 0;

  /** `search`: cheapestPaths over the graph from a router, avoiding the excluded routers, to every router it reaches. */
  constructor(
    private readonly search: (from: string, excluded: (router: string) => boolean) => PathTree,
    private readonly limit = pathTreeLimit,
  ) {}

  /** The paths from `from` that never pass through a router `excluded` names; `exclusion` stands for that set (the
   * same object for the same set, a new one when it changes). */
  pathsFrom(from: string, exclusion: object, excluded: (router: string) => boolean): PathTree {
    const key = `${this.exclusionId(exclusion)}:${from}`;
    const kept = this.trees.get(key);
    if (kept) {
      // Most recently used last: the first entry is the one to let go.
      this.trees.delete(key);
      this.trees.set(key, kept);
      return kept.tree;
    }
    this.searches++;
    const tree = this.search(from, excluded);
    if (this.trees.size >= this.limit) this.trees.delete(this.trees.keys().next().value!);
    this.trees.set(key, { from, excluded, tree });
    return tree;
  }

  /** A link `linkId` changed: absent before (undefined) or after (undefined), moved to another pair, or a new cost. */
  linkChanged(linkId: string, before: GraphLink | undefined, after: GraphLink | undefined): void {
    for (const [key, kept] of this.trees) if (mayChange(kept, linkId, before, after)) this.trees.delete(key);
  }

  /** Every tree dropped (the whole graph replaced). */
  clear(): void {
    this.trees.clear();
  }

  get size(): number {
    return this.trees.size;
  }

  private exclusionId(exclusion: object): number {
    let id = this.exclusionIds.get(exclusion);
    if (id === undefined) this.exclusionIds.set(exclusion, (id = this.nextExclusionId++));
    return id;
  }
}

function mayChange({ from, excluded, tree }: KeptTree, linkId: string, before: GraphLink | undefined, after: GraphLink | undefined): boolean {
  if (before && (tree.linkInto(before.a) === linkId || tree.linkInto(before.b) === linkId)) return true;
  if (!after) return false;
  return mayImprove(from, excluded, tree, linkId, after.a, after.b, after.cost) || mayImprove(from, excluded, tree, linkId, after.b, after.a, after.cost);
}

/** Whether the link, entered from `near`, offers `far` a path as cheap as the one it has (or its first). */
function mayImprove(from: string, excluded: (router: string) => boolean, tree: PathTree, linkId: string, near: string, far: string, cost: number): boolean {
  const nearCost = tree.costTo(near);
  if (nearCost === undefined || far === from || excluded(far)) return false;
  const farCost = tree.costTo(far);
  if (farCost === undefined) return true;
  const through = nearCost + cost;
  return through < farCost || (through === farCost && linkId < (tree.linkInto(far) ?? ''));
}
