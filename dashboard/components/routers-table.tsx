// Routers: connected or not, to which controller, the control channel's round trip, its SDK edge connections
// (channels, and the virtual connections they hold), and each link by the router at
// its other end (its name when the page knows it) with its round trip and, smaller, its id.
import type { RouterView } from '../state/snapshot.ts';
import { Badge } from './badges.tsx';
import { formatSeconds } from './format.ts';

export function RoutersTable({ routers }: { routers: readonly RouterView[] }) {
  if (routers.length === 0) return <p className="note">No routers configured (routers[]) or reporting to the controllers.</p>;
  return (
    <div className="table-wrap">
      <table data-testid="routers">
        <caption className="visually-hidden">Routers</caption>
        <thead>
          <tr>
            <th scope="col">Router</th>
            <th scope="col">Connected</th>
            <th scope="col">Controller</th>
            <th scope="col">Control round trip</th>
            <th scope="col">Edge connections</th>
            <th scope="col">Links (round trip)</th>
          </tr>
        </thead>
        <tbody>
          {routers.map((router) => (
            <tr key={router.id} data-testid="router-row" data-router-id={router.id}>
              <th scope="row">
                {router.name ?? router.id}
                {router.name ? <span className="muted mono"> {router.id}</span> : null}
              </th>
              <td>
                {router.connected === undefined ? '—' : router.connected ? <Badge level="ok">connected</Badge> : <Badge level="critical">not connected</Badge>}
                {router.healthReachable === false ? <span className="error"> health checks unreachable: {router.error}</span> : null}
              </td>
              <td>{router.controllers.length > 0 ? router.controllers.join(', ') : '—'}</td>
              <td>{formatSeconds(router.ctrlLatencySeconds)}</td>
              <td data-testid="router-edge">{edgeText(router)}</td>
              <td>
                {router.links.length === 0
                  ? 'none'
                  : router.links.map((link) => (
                      <div key={link.id} data-testid="router-link" data-link-id={link.id}>
                        → <span data-testid="link-peer">{link.destRouterName ?? link.destRouterId ?? 'unknown router'}</span> ({formatSeconds(link.latencySeconds)})
                        <span className="muted mono"> {link.id}</span>
                      </div>
                    ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** "3 SDK channels, 5 connections", or a dash when the router does not report them. */
function edgeText(router: RouterView): string {
  const edge = router.edge;
  if (edge?.channels === undefined) return '—';
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  return `${plural(edge.channels, 'SDK channel')}, ${plural(edge.connections ?? 0, 'connection')}`;
}
