// The data plane: circuits across the cluster (events the controllers wrote, failures by cause) and per router (its
// circuits now, set up, failed, failed dials, bytes in and out of the overlay), from the controllers' /metrics.
import type { CircuitsView, RouterView } from '../state/snapshot.ts';
import { Badge } from './badges.tsx';
import { formatBytes, formatCount } from './format.ts';

export function CircuitsTable({ circuits, routers }: { circuits: CircuitsView; routers: readonly RouterView[] }) {
  const reporting = routers.filter((router) => router.circuits !== undefined);
  return (
    <div data-testid="circuits">
      <p data-testid="circuit-totals">
        <strong>{formatCount(circuits.active)}</strong> circuits up now; since the controllers started: <strong>{formatCount(circuits.created)}</strong> created,{' '}
        <strong>{formatCount(circuits.deleted)}</strong> ended, <strong>{formatCount(circuits.failed)}</strong> failed
        {circuits.failuresByCause.length > 0 ? (
          <>
            {' '}
            (
            {circuits.failuresByCause.map((failure, index) => (
              <span key={failure.cause} data-testid="circuit-failure-cause">
                {index > 0 ? ', ' : ''}
                <span className="mono">{failure.cause}</span> {formatCount(failure.count)}
              </span>
            ))}
            )
          </>
        ) : null}
        .
      </p>
      {reporting.length === 0 ? (
        <p className="note">No router reports circuits yet.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Circuits per router</caption>
            <thead>
              <tr>
                <th scope="col">Router</th>
                <th scope="col">Circuits now</th>
                <th scope="col">Set up</th>
                <th scope="col">Failed</th>
                <th scope="col">Failed dials</th>
                <th scope="col">Into the overlay</th>
                <th scope="col">Out of the overlay</th>
              </tr>
            </thead>
            <tbody>
              {reporting.map((router) => (
                <tr key={router.id} data-testid="circuit-row" data-router-id={router.id}>
                  <th scope="row">{router.name ?? router.id}</th>
                  <td data-testid="circuit-count">{formatCount(router.circuits?.count)}</td>
                  <td>{formatCount(router.circuits?.created)}</td>
                  <td>{router.circuits?.failed ? <Badge level="warn">{formatCount(router.circuits.failed)}</Badge> : formatCount(router.circuits?.failed)}</td>
                  <td>{router.circuits?.dialFailures ? <Badge level="warn">{formatCount(router.circuits.dialFailures)}</Badge> : formatCount(router.circuits?.dialFailures)}</td>
                  <td data-testid="circuit-bytes-in">{formatBytes(router.circuits?.bytesIn)}</td>
                  <td>{formatBytes(router.circuits?.bytesOut)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
