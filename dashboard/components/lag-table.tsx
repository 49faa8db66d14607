// Commit lag per controller, in raft entries and in seconds, and where the figures come from.
import type { ControllerView } from '../state/snapshot.ts';
import { Badge } from './badges.tsx';
import { formatCount, formatSeconds } from './format.ts';

export function LagTable({ controllers }: { controllers: readonly ControllerView[] }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Commit lag per controller</caption>
        <thead>
          <tr>
            <th scope="col">Controller</th>
            <th scope="col">Entries behind</th>
            <th scope="col">Seconds behind</th>
            <th scope="col">Applied index</th>
            <th scope="col">From</th>
          </tr>
        </thead>
        <tbody>
          {controllers.map((controller) => (
            <tr key={controller.id} data-testid="lag-row" data-controller-id={controller.id}>
              <th scope="row">{controller.id}</th>
              <td data-testid="lag-entries">{controller.lag?.entries === undefined ? '—' : controller.lag.behind ? <Badge level="warn">{formatCount(controller.lag.entries)}</Badge> : formatCount(controller.lag.entries)}</td>
              <td data-testid="lag-seconds">{formatSeconds(controller.lag?.seconds)}</td>
              <td>{formatCount(controller.appliedIndex)}</td>
              <td className="muted">{controller.lag?.source ?? 'no source'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
