// The member table as `agent cluster list` shows it, from the leader's view (GET /fabric/v1/cluster/list-members).
import type { MembersView } from '../state/snapshot.ts';
import { Badge } from './badges.tsx';
import { formatAgo } from './format.ts';

const yes = (value: boolean) => (value ? 'true' : 'false');

export function MemberTable({ members, now }: { members: MembersView; now: number }) {
  return (
    <>
      <p className="note">
        {members.from ? (
          <>
            The view of <strong>{members.from}</strong>
            {members.fromLeader ? ' (the leader)' : ' (not the leader: with no leader, a follower\'s view; other followers may show as not connected)'}
            {members.at !== undefined ? <span suppressHydrationWarning>, read {formatAgo(members.at, now)}</span> : null}.
          </>
        ) : (
          'No member list yet.'
        )}
      </p>
      {members.error ? (
        <p className="warning" role="note">
          {members.error}
        </p>
      ) : null}
      {members.rows.length > 0 ? (
        <div className="table-wrap">
          <table data-testid="member-table">
            <caption className="visually-hidden">Cluster members</caption>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Address</th>
                <th scope="col">Voter</th>
                <th scope="col">Leader</th>
                <th scope="col">Version</th>
                <th scope="col">Connected</th>
                <th scope="col">Read-only</th>
                <th scope="col">Preferred</th>
              </tr>
            </thead>
            <tbody>
              {members.rows.map((row) => (
                <tr key={row.id} data-testid="member-row" data-member-id={row.id}>
                  <th scope="row">{row.id}</th>
                  <td className="mono">{row.address}</td>
                  <td>{yes(row.voter)}</td>
                  <td>{row.leader ? <Badge level="ok">true</Badge> : 'false'}</td>
                  <td>{row.version}</td>
                  <td>{row.connected ? 'true' : <Badge level="critical">false</Badge>}</td>
                  <td>{row.readOnly ? <Badge level="critical">true</Badge> : 'false'}</td>
                  <td>{yes(row.preferredLeader)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
