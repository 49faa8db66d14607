// The path a circuit takes over the router mesh: the cheapest chain of links from the router that accepted the
// connection to the router hosting the terminator. A link is usable in both directions (its bytes flow both ways)
// only when both of its ends report it, each naming the other as the peer: one router's word is not enough (a
// compromised router could otherwise claim a 0 ms link to anyone and be planned onto their circuits). Its cost is
// the higher of the two ends' measured latencies (the mean round trip each reports) plus a fixed cost per hop, so
// that a router cannot cheapen a link by under-reporting, among links of equal latency fewer hops win, and a link
// not yet measured at either end is not free. Only routers connected to the cluster now are on a path. Pure: link reports in, paths out (Dijkstra; ties go to the
// lower router id, so every controller picks the same path from the same reports).

export interface ReportedLink {
  readonly id: string;
  readonly destRouterId: string;
  readonly latencyMs: number | null;
}

/** One router's links as it last reported them. */
export interface RouterLinkReport {
  readonly routerId: string;
  readonly links: readonly ReportedLink[];
}

export interface PathCosts {
  /** Added for each hop (ms). */
  readonly perHopMs: number;
  /** A link's cost before its first latency sample (ms). */
  readonly unmeasuredMs: number;
}

export const defaultPathCosts: PathCosts = { perHopMs: 1, unmeasuredMs: 1000 };

export interface CircuitPath {
  /** Router ids from the ingress to the egress router; one id when both are the same router. */
  readonly routers: readonly string[];
  /** links[i] joins routers[i] and routers[i + 1]. */
  readonly links: readonly string[];
  /** Sum of the hops' costs (ms). */
  readonly cost: number;
}

/** One usable link seen from one of its ends. */
export interface Edge {
  readonly to: string;
  readonly linkId: string;
  readonly cost: number;
}

/** The graph of usable links between connected routers: routerId → edges. */
export function linkGraph(reports: readonly RouterLinkReport[], connected: ReadonlySet<string>, costs: PathCosts = defaultPathCosts): Map<string, Edge[]> {
  // linkId → reporting router → what it says (the peer and the latency); null when one router says two things.
  const claims = new Map<string, Map<string, { peer: string; latency: number } | null>>();
  for (const report of reports) {
    if (!connected.has(report.routerId)) continue;
    for (const link of report.links) {
      if (!connected.has(link.destRouterId) || link.destRouterId === report.routerId) continue;
      const latency = typeof link.latencyMs === 'number' && Number.isFinite(link.latencyMs) && link.latencyMs >= 0 ? link.latencyMs : costs.unmeasuredMs;
      let byReporter = claims.get(link.id);
      if (!byReporter) claims.set(link.id, (byReporter = new Map()));
      const held = byReporter.get(report.routerId);
      byReporter.set(report.routerId, held === undefined ? { peer: link.destRouterId, latency } : held !== null && held.peer === link.destRouterId ? { peer: held.peer, latency: Math.max(held.latency, latency) } : null);
    }
  }
  const best = new Map<string, { a: string; b: string; cost: number }>();
  for (const [linkId, byReporter] of claims) {
    for (const [a, claim] of byReporter) {
      if (claim === null || claim.peer < a) continue;
      const answer = byReporter.get(claim.peer);
      // The other end must vouch for the same link with this router as its peer.
      if (!answer || answer.peer !== a) continue;
      best.set(linkId, { a, b: claim.peer, cost: Math.max(claim.latency, answer.latency) + costs.perHopMs });
    }
  }
  const graph = new Map<string, Edge[]>();
  const add = (from: string, edge: Edge) => {
    let edges = graph.get(from);
    if (!edges) graph.set(from, (edges = []));
    edges.push(edge);
  };
  for (const [linkId, { a, b, cost }] of best) {
    add(a, { to: b, linkId, cost });
    add(b, { to: a, linkId, cost });
  }
  return graph;
}

/** The cheapest path from `from` to `to`, or undefined when no chain of links joins them. */
export function cheapestPath(graph: ReadonlyMap<string, readonly Edge[]>, from: string, to: string): CircuitPath | undefined {
  return cheapestPaths(graph, from).to(to);
}

/** The cheapest paths from `from` to every router it reaches, worked out once (one Dijkstra over a binary heap):
 * a circuit's terminators are often on many routers, and one search per terminator over thousands of routers was
 * the planner's whole cost. Each router's path is the one `cheapestPath` picked: the ties go the same way (the
 * lower router id settles first; between equal routes into a router, the lower link id), and once a router settles
 * its cost and route no longer change, so searching on past a target changes nothing about it. */
export interface PathSearchLimits {
  /** Routers no path may pass through or end at (the start is never skipped): as if they were not in the graph. */
  readonly excluded?: (router: string) => boolean;
  /** The search stops once every one of these has its final path (a router's path is final once it is taken from the
   * queue), instead of reaching every router of the network. */
  readonly targets?: ReadonlySet<string>;
}

/** What one search found: each settled router's path, cost and the link its path arrives by. */
export interface PathTree {
  to(router: string): CircuitPath | undefined;
  /** The path's cost to a settled router (undefined: not reached, excluded, or past the targets). */
  costTo(router: string): number | undefined;
  /** The link a settled router's path arrives by (undefined for the start and for routers not settled). */
  linkInto(router: string): string | undefined;
}

export function cheapestPaths(graph: ReadonlyMap<string, readonly Edge[]>, from: string, limits: PathSearchLimits = {}): PathTree {
  const cost = new Map<string, number>([[from, 0]]);
  const previous = new Map<string, { router: string; linkId: string }>();
  const done = new Set<string>();
  const queue = new RouterQueue();
  const { excluded, targets } = limits;
  let targetsLeft = targets === undefined ? -1 : targets.size;
  queue.push(0, from);
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    const current = next.router;
    // A router pushed again at a lower cost leaves its older entries behind: skip them.
    if (done.has(current) || next.cost !== cost.get(current)) continue;
    done.add(current);
    if (targets?.has(current) && --targetsLeft === 0) break;
    for (const edge of graph.get(current) ?? []) {
      if (done.has(edge.to) || (excluded !== undefined && edge.to !== from && excluded(edge.to))) continue;
      const through = next.cost + edge.cost;
      const held = cost.get(edge.to);
      if (held === undefined || through < held || (through === held && edge.linkId < previous.get(edge.to)!.linkId)) {
        cost.set(edge.to, through);
        previous.set(edge.to, { router: current, linkId: edge.linkId });
        if (held === undefined || through < held) queue.push(through, edge.to);
      }
    }
  }
  return {
    to(router: string): CircuitPath | undefined {
      if (router === from) return { routers: [from], links: [], cost: 0 };
      if (!done.has(router)) return undefined;
      const routers = [router];
      const links: string[] = [];
      for (let at = router; at !== from; ) {
        const step = previous.get(at)!;
        links.unshift(step.linkId);
        routers.unshift(step.router);
        at = step.router;
      }
      return { routers, links, cost: cost.get(router)! };
    },
    costTo: (router) => (done.has(router) ? cost.get(router) : undefined),
    linkInto: (router) => (done.has(router) ? previous.get(router)?.linkId : undefined),
  };
}

/** A binary min-heap of (cost, router): the lower cost first, then the lower router id. */
class RouterQueue {
  private readonly costs: number[] = [];
  private readonly routers: string[] = [];

  push(cost: number, router: string): void {
    let at = this.costs.length;
    this.costs.push(cost);
    this.routers.push(router);
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.before(at, parent)) break;
      this.swap(at, parent);
      at = parent;
    }
  }

  pop(): { cost: number; router: string } | undefined {
    if (this.costs.length === 0) return undefined;
    const top = { cost: this.costs[0]!, router: this.routers[0]! };
    const lastCost = this.costs.pop()!;
    const lastRouter = this.routers.pop()!;
    if (this.costs.length > 0) {
      this.costs[0] = lastCost;
      this.routers[0] = lastRouter;
      for (let at = 0; ; ) {
        const left = 2 * at + 1;
        const right = left + 1;
        let least = at;
        if (left < this.costs.length && this.before(left, least)) least = left;
        if (right < this.costs.length && this.before(right, least)) least = right;
        if (least === at) break;
        this.swap(at, least);
        at = least;
      }
    }
    return top;
  }

  private before(a: number, b: number): boolean {
    return this.costs[a]! < this.costs[b]! || (this.costs[a] === this.costs[b] && this.routers[a]! < this.routers[b]!);
  }

  private swap(a: number, b: number): void {
    [this.costs[a], this.costs[b]] = [this.costs[b]!, this.costs[a]!];
    [this.routers[a], this.routers[b]] = [this.routers[b]!, this.routers[a]!];
  }
}
