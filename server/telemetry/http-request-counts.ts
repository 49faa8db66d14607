// Requests answered, by API, route template (`/identities/:id`, never a raw path), method and status: the numbers
// behind `edgeward_http_requests_total`. Counting is an increment in a cell found through four map lookups, with
// no allocation after a kind's first request; the observable counter reads the cells at scrape time. (A synchronous
// OpenTelemetry counter would hash its attributes on every request, some 3 µs each.) Route templates and a closed
// set of methods keep the series few. Pure.
import type { Attributes } from '@opentelemetry/api';

/** The route label of a request no route matched (unknown paths, whatever they are). */
export const unmatchedRoute = 'unmatched';

const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The method as a label: the usual ones as sent, anything else `other`. */
export function methodLabel(method: string): string {
  return methods.has(method) ? method : 'other';
}

interface Cell {
  readonly attributes: Attributes;
  count: number;
}

export class HttpRequestCounts {
  private readonly byApi = new Map<string, Map<string, Map<string, Map<number, Cell>>>>();
  private readonly cells: Cell[] = [];

  /** Counts one request; `route` undefined means no route matched. */
  add(api: string, route: string | undefined, method: string, status: number): void {
    const routeLabel = route ?? unmatchedRoute;
    let byRoute = this.byApi.get(api);
    if (!byRoute) this.byApi.set(api, (byRoute = new Map()));
    let byMethod = byRoute.get(routeLabel);
    if (!byMethod) byRoute.set(routeLabel, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let cell = byStatus.get(status);
    if (!cell) {
      cell = { attributes: Object.freeze({ api, route: routeLabel, method: methodLabel(method), status: String(status) }), count: 0 };
      byStatus.set(status, cell);
      this.cells.push(cell);
    }
    cell.count++;
  }

  /** Every series with its count so far; methods outside the usual set are summed under `other`. */
  *series(): Generator<{ readonly value: number; readonly attributes: Attributes }> {
    const others = new Map<string, { value: number; attributes: Attributes }>();
    for (const cell of this.cells) {
      if (cell.attributes.method !== 'other') {
        yield { value: cell.count, attributes: cell.attributes };
        continue;
      }
      const key = `${cell.attributes.api}|${cell.attributes.route}|${cell.attributes.status}`;
      const summed = others.get(key);
      if (summed) summed.value += cell.count;
      else others.set(key, { value: cell.count, attributes: cell.attributes });
    }
    yield* others.values();
  }
}
