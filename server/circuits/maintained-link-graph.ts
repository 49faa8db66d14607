// The link graph of circuit-paths.ts's `linkGraph`, kept up to date as routers connect, leave and report their links,
// instead of rebuilt from every report for each circuit (49 ms at 5,000 routers). A change to one router recomputes
// only the links it names and the links that name it; the rules are linkGraph's: a link counts when both of its
// ends, connected now, report it naming each other, at the higher of their latencies plus the per-hop cost. One
// difference, for a link id two different pairs of routers both vouch for (a router choosing another pair's id):
// linkGraph keeps the pair it met last, this keeps the pair with the lower router id. Pure: no clock, no I/O.
import { defaultPathCosts, type Edge, type PathCosts, type PathTree, type ReportedLink } from './circuit-paths.ts';
import { IndexedLinkGraph } from './indexed-link-graph.ts';
import { PathTreeCache } from './path-tree-cache.ts';

interface Claim {
  readonly dest: string;
  readonly latency: number;
}

export class MaintainedLinkGraph {
  /** The graph, as linkGraph returns it: a router with no usable link has no entry. Read it; never change it. */
  readonly graph = new Map<string, Edge[]>();
  private readonly connected = new Set<string>();
  /** Each router's last report: link id → every entry of the report with that id. */
  private readonly reports = new Map<string, Map<string, Claim[]>>();
  /** link id → routers whose report names it. */
  private readonly reporters = new Map<string, Set<string>>();
  /** router → link ids reports name it as the peer of. */
  private readonly namedAsPeer = new Map<string, Set<string>>();
  /** link id → the pair it joins now (a < b). */
  private readonly usable = new Map<string, { a: string; b: string; cost: number }>();

  /** Ingress routers' shortest-path trees, each dropped by the link changes that could alter it (path-tree-cache.ts). */
  readonly trees = new PathTreeCache((from, excluded) => this.numbered.paths(from, excluded));
  /** The same edges by router number, what the trees are searched over (indexed-link-graph.ts). */
  private readonly numbered = new IndexedLinkGraph();

  constructor(private readonly costs: PathCosts = defaultPathCosts) {}

  /** The cheapest paths from `from` avoiding the routers `excluded` names (`exclusion` stands for that set), kept
   * while no change of the graph could alter them. */
  pathsFrom(from: string, exclusion: object, excluded: (router: string) => boolean): PathTree {
    return this.trees.pathsFrom(from, exclusion, excluded);
  }

  /** A router connected (with its links, possibly none yet), reported links again, or left (`links` undefined). */
  setRouter(routerId: string, links: readonly ReportedLink[] | undefined): void {
    const affected = new Set<string>();
    const wasConnected = this.connected.has(routerId);
    const before = this.reports.get(routerId);
    for (const linkId of before?.keys() ?? []) affected.add(linkId);
    if (before) this.forgetReport(routerId, before);
    if (links === undefined) this.connected.delete(routerId);
    else {
      this.connected.add(routerId);
      const report = new Map<string, Claim[]>();
      for (const link of links) {
        const latency = typeof link.latencyMs === 'number' && Number.isFinite(link.latencyMs) && link.latencyMs >= 0 ? link.latencyMs : this.costs.unmeasuredMs;
        let claims = report.get(link.id);
        if (!claims) report.set(link.id, (claims = []));
        claims.push({ dest: link.destRouterId, latency });
        affected.add(link.id);
      }
      this.rememberReport(routerId, report);
    }
    // Whether it is connected decides whether others' links to it count.
    if (wasConnected !== this.connected.has(routerId)) for (const linkId of this.namedAsPeer.get(routerId) ?? []) affected.add(linkId);
    for (const linkId of affected) this.recompute(linkId);
  }

  private rememberReport(routerId: string, report: Map<string, Claim[]>): void {
    this.reports.set(routerId, report);
    for (const [linkId, claims] of report) {
      setOf(this.reporters, linkId).add(routerId);
      for (const claim of claims) setOf(this.namedAsPeer, claim.dest).add(linkId);
    }
  }

  private forgetReport(routerId: string, report: Map<string, Claim[]>): void {
    this.reports.delete(routerId);
    for (const [linkId, claims] of report) {
      deleteFrom(this.reporters, linkId, routerId);
      // Another router's report may name the same peer under this id: keep the entry when one still does.
      for (const claim of claims) if (!this.stillNamed(linkId, claim.dest)) deleteFrom(this.namedAsPeer, claim.dest, linkId);
    }
  }

  private stillNamed(linkId: string, dest: string): boolean {
    for (const reporter of this.reporters.get(linkId) ?? []) if (this.reports.get(reporter)?.get(linkId)?.some((claim) => claim.dest === dest)) return true;
    return false;
  }

  /** What `routerId` says of `linkId` (linkGraph's rule): one peer and the highest latency, or null for two peers. */
  private claimOf(routerId: string, linkId: string): { peer: string; latency: number } | null | undefined {
    let held: { peer: string; latency: number } | null | undefined;
    for (const claim of this.reports.get(routerId)?.get(linkId) ?? []) {
      if (!this.connected.has(claim.dest) || claim.dest === routerId) continue;
      held = held === undefined ? { peer: claim.dest, latency: claim.latency } : held !== null && held.peer === claim.dest ? { peer: held.peer, latency: Math.max(held.latency, claim.latency) } : null;
    }
    return held;
  }

  private recompute(linkId: string): void {
    let best: { a: string; b: string; cost: number } | undefined;
    const reporters = [...(this.reporters.get(linkId) ?? [])].filter((id) => this.connected.has(id)).sort();
    for (const a of reporters) {
      const claim = this.claimOf(a, linkId);
      if (!claim || claim.peer < a) continue;
      const answer = this.claimOf(claim.peer, linkId);
      if (!answer || answer.peer !== a) continue;
      best = { a, b: claim.peer, cost: Math.max(claim.latency, answer.latency) + this.costs.perHopMs };
      break;
    }
    const current = this.usable.get(linkId);
    if (current && best && current.a === best.a && current.b === best.b && current.cost === best.cost) return;
    this.trees.linkChanged(linkId, current, best);
    if (current) {
      this.removeEdge(current.a, linkId);
      this.removeEdge(current.b, linkId);
      this.usable.delete(linkId);
    }
    if (best) {
      this.usable.set(linkId, best);
      this.addEdge(best.a, { to: best.b, linkId, cost: best.cost });
      this.addEdge(best.b, { to: best.a, linkId, cost: best.cost });
    }
  }

  // Each router's edges are a fresh array on change: a plan holding the graph's arrays never sees them move.
  private addEdge(from: string, edge: Edge): void {
    const edges = [...(this.graph.get(from) ?? []), edge];
    this.graph.set(from, edges);
    this.numbered.setEdges(from, edges);
  }

  private removeEdge(from: string, linkId: string): void {
    const edges = (this.graph.get(from) ?? []).filter((edge) => edge.linkId !== linkId);
    if (edges.length === 0) this.graph.delete(from);
    else this.graph.set(from, edges);
    this.numbered.setEdges(from, edges);
  }
}

function setOf<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  return set;
}

function deleteFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
