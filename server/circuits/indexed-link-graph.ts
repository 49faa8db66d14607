// The maintained link graph's edges by router number, and cheapestPaths' search over them with typed arrays: the same
// paths, ties included (the lower router id settles first; between equal routes into a router, the lower link id),
// at a fifth of the cost or less at 5,000 routers, where the string-keyed maps of a search were its whole cost (a
// kept tree is searched again after every change that could alter it). A router keeps its number for as long as the
// graph lives (numbers are never reused: bounded by the routers ever connected). Pure: no clock, no I/O.
import type { CircuitPath, PathTree } from './circuit-paths.ts';

interface NumberedEdge {
  readonly to: number;
  readonly linkId: string;
  readonly cost: number;
}

export class IndexedLinkGraph {
  private readonly numbers = new Map<string, number>();
  private readonly ids: string[] = [];
  private readonly edges: Array<readonly NumberedEdge[] | undefined> = [];

  /** A router's edges now (as the graph's Map holds them: `to` as a router id). */
  setEdges(routerId: string, edges: readonly { readonly to: string; readonly linkId: string; readonly cost: number }[]): void {
    this.edges[this.numberOf(routerId)] = edges.map((edge) => ({ to: this.numberOf(edge.to), linkId: edge.linkId, cost: edge.cost }));
  }

  /** cheapestPaths(graph, from, { excluded }) over these edges: every router `from` reaches. */
  paths(from: string, excluded: (router: string) => boolean): PathTree {
    const count = this.ids.length;
    const start = this.numbers.get(from);
    const cost = new Float64Array(count).fill(Infinity);
    const previous = new Int32Array(count).fill(-1);
    const arrivalLink: Array<string | undefined> = new Array(count);
    const done = new Uint8Array(count);
    // 0: not asked yet, 1: may be passed through, 2: excluded.
    const allowed = new Uint8Array(count);
    if (start !== undefined) {
      const queue = new NumberQueue(this.ids);
      cost[start] = 0;
      queue.push(0, start);
      while (queue.size > 0) {
        const through0 = queue.topCost();
        const current = queue.pop();
        // A router pushed again at a lower cost leaves its older entries behind: skip them.
        if (done[current] === 1 || through0 !== cost[current]) continue;
        done[current] = 1;
        for (const edge of this.edges[current] ?? []) {
          const to = edge.to;
          if (done[to] === 1) continue;
          if (to !== start) {
            if (allowed[to] === 0) allowed[to] = excluded(this.ids[to]!) ? 2 : 1;
            if (allowed[to] === 2) continue;
          }
          const through = through0 + edge.cost;
          const held = cost[to]!;
          if (through < held || (through === held && edge.linkId < arrivalLink[to]!)) {
            cost[to] = through;
            previous[to] = current;
            arrivalLink[to] = edge.linkId;
            if (through < held) queue.push(through, to);
          }
        }
      }
    }
    const settled = (router: string): number | undefined => {
      const number = this.numbers.get(router);
      return number !== undefined && done[number] === 1 ? number : undefined;
    };
    const ids = this.ids;
    return {
      to(router: string): CircuitPath | undefined {
        if (router === from) return { routers: [from], links: [], cost: 0 };
        const last = settled(router);
        if (last === undefined) return undefined;
        const routers = [router];
        const links: string[] = [];
        for (let at = last; at !== start; at = previous[at]!) {
          links.unshift(arrivalLink[at]!);
          routers.unshift(ids[previous[at]!]!);
        }
        return { routers, links, cost: cost[last]! };
      },
      costTo(router) {
        const number = settled(router);
        return number === undefined ? (router === from ? 0 : undefined) : cost[number];
      },
      linkInto(router) {
        const number = settled(router);
        return number === undefined || number === start ? undefined : arrivalLink[number];
      },
    };
  }

  private numberOf(routerId: string): number {
    let number = this.numbers.get(routerId);
    if (number === undefined) {
      number = this.ids.length;
      this.numbers.set(routerId, number);
      this.ids.push(routerId);
      this.edges.push(undefined);
    }
    return number;
  }
}

/** A binary min-heap of (cost, router number): the lower cost first, then the lower router id. */
class NumberQueue {
  private readonly costs: number[] = [];
  private readonly routers: number[] = [];

  constructor(private readonly ids: readonly string[]) {}

  get size(): number {
    return this.costs.length;
  }

  topCost(): number {
    return this.costs[0]!;
  }

  push(cost: number, router: number): void {
    let at = this.costs.length;
    this.costs.push(cost);
    this.routers.push(router);
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.before(cost, router, this.costs[parent]!, this.routers[parent]!)) break;
      this.costs[at] = this.costs[parent]!;
      this.routers[at] = this.routers[parent]!;
      at = parent;
    }
    this.costs[at] = cost;
    this.routers[at] = router;
  }

  pop(): number {
    const top = this.routers[0]!;
    const lastCost = this.costs.pop()!;
    const lastRouter = this.routers.pop()!;
    const size = this.costs.length;
    if (size === 0) return top;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let least = -1;
      let leastCost = lastCost;
      let leastRouter = lastRouter;
      if (left < size && this.before(this.costs[left]!, this.routers[left]!, leastCost, leastRouter)) {
        least = left;
        leastCost = this.costs[left]!;
        leastRouter = this.routers[left]!;
      }
      if (right < size && this.before(this.costs[right]!, this.routers[right]!, leastCost, leastRouter)) {
        least = right;
        leastCost = this.costs[right]!;
        leastRouter = this.routers[right]!;
      }
      if (least < 0) break;
      this.costs[at] = leastCost;
      this.routers[at] = leastRouter;
      at = least;
    }
    this.costs[at] = lastCost;
    this.routers[at] = lastRouter;
    return top;
  }

  private before(costA: number, routerA: number, costB: number, routerB: number): boolean {
    return costA < costB || (costA === costB && this.ids[routerA]! < this.ids[routerB]!);
  }
}
