// The path a circuit takes over the router mesh: the cheapest chain of links from the router that accepted the
// connection to the router hosting the terminator. A link is usable in both directions (its bytes flow both ways)
// when either end reports it; its cost is its measured latency (the mean round trip its routers report) plus a fixed
// cost per hop, so that among links of equal latency fewer hops win and a link not yet measured is not free. Only
// routers connected to the cluster now are on a path. Pure: link reports in, path out (Dijkstra; ties go to the
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

interface Edge {
  readonly to: string;
  readonly linkId: string;
  readonly cost: number;
}

/** The graph of usable links between connected routers: routerId → edges. */
export function linkGraph(reports: readonly RouterLinkReport[], connected: ReadonlySet<string>, costs: PathCosts = defaultPathCosts): Map<string, Edge[]> {
  const best = new Map<string, { a: string; b: string; cost: number }>();
  for (const report of reports) {
    if (!connected.has(report.routerId)) continue;
    for (const link of report.links) {
      if (!connected.has(link.destRouterId) || link.destRouterId === report.routerId) continue;
      const latency = typeof link.latencyMs === 'number' && Number.isFinite(link.latencyMs) && link.latencyMs >= 0 ? link.latencyMs : costs.unmeasuredMs;
      const cost = latency + costs.perHopMs;
      const held = best.get(link.id);
      // Both ends report the same link: the lower (usually the measured) cost counts.
      if (!held || cost < held.cost) best.set(link.id, { a: report.routerId, b: link.destRouterId, cost });
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
  if (from === to) return { routers: [from], links: [], cost: 0 };
  const cost = new Map<string, number>([[from, 0]]);
  const previous = new Map<string, { router: string; linkId: string }>();
  const done = new Set<string>();
  for (;;) {
    let current: string | undefined;
    for (const [router, value] of cost) {
      if (done.has(router)) continue;
      if (current === undefined || value < cost.get(current)! || (value === cost.get(current)! && router < current)) current = router;
    }
    if (current === undefined) return undefined;
    if (current === to) break;
    done.add(current);
    for (const edge of graph.get(current) ?? []) {
      if (done.has(edge.to)) continue;
      const through = cost.get(current)! + edge.cost;
      const held = cost.get(edge.to);
      if (held === undefined || through < held || (through === held && edge.linkId < previous.get(edge.to)!.linkId)) {
        cost.set(edge.to, through);
        previous.set(edge.to, { router: current, linkId: edge.linkId });
      }
    }
  }
  const routers = [to];
  const links: string[] = [];
  for (let at = to; at !== from; ) {
    const step = previous.get(at)!;
    links.unshift(step.linkId);
    routers.unshift(step.router);
    at = step.router;
  }
  return { routers, links, cost: cost.get(to)! };
}
