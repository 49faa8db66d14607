// The pages about leadership and quorum, and the leadership-churn warning. The spec pages on a leader missing for
// longer than the leaderless threshold (1m by default), on read-only mode and on lost quorum; it never pages on a
// single election, so every `for:` here outlasts the election a planned restart causes (one or two election
// timeouts, seen by Prometheus for at most a scrape or two).
import { monitoringMixin } from '../mixin/monitoring-mixin.ts';
import { byCluster, byController, controllerSeries, inWords } from './promql-fragments.ts';
import { leadershipGainedSeries } from './recording-rules.ts';
import type { AlertRule } from './rule-model.ts';
import { controllerTarget, down, repeat, series, testCluster, testControllers, type TestControllerId } from './testing/test-series.ts';

const cluster = { cluster: testCluster };
const of = (controller: TestControllerId) => ({ cluster: testCluster, controller });

const leaderlessFor = monitoringMixin.leaderless.for;
export const clusterLeaderless: AlertRule = {
  name: 'EdgewardClusterLeaderless',
  expr: [
    `max by (${byController}) (${controllerSeries('edgeward_raft_voters_connected')})`,
    `and on(${byController})`,
    `  max by (${byController}) (${controllerSeries('edgeward_raft_has_leader')}) == 0`,
    `and on(${byController})`,
    `  max by (${byController}) (${controllerSeries('edgeward_raft_voters')}) > 0`,
  ].join('\n'),
  for: leaderlessFor,
  detail: ({ label, value }) =>
    `Controller ${label('controller')} of cluster ${label('cluster')} has known no raft leader for more than ${leaderlessFor}; connected voters, itself included: ${value}.`,
  rationale:
    `A controller that is a member (it has voters) and knows no leader. ${leaderlessFor} is the default leaderless threshold (cluster.warnWhenLeaderlessFor); an election takes one or two election timeouts. A controller waiting to be added has no voters and is left out.`,
  tests: [
    {
      name: 'EdgewardClusterLeaderless fires when a controller has known no leader for over a minute',
      interval: '15s',
      series: [
        ...testControllers.map((id) => series('edgeward_raft_voters', controllerTarget(id), repeat(3, 32))),
        series('edgeward_raft_has_leader', controllerTarget('ctrl1'), repeat(1, 32)),
        series('edgeward_raft_voters_connected', controllerTarget('ctrl1'), [...repeat(3, 8), ...repeat(2, 24)]),
        series('edgeward_raft_has_leader', controllerTarget('ctrl2'), [...repeat(1, 8), ...repeat(0, 24)]),
        series('edgeward_raft_voters_connected', controllerTarget('ctrl2'), [...repeat(3, 8), ...repeat(1, 24)]),
      ],
      checks: [
        { at: '2m45s', firing: [] },
        { at: '3m30s', firing: [{ labels: of('ctrl2'), value: '1' }] },
      ],
    },
    {
      name: 'EdgewardClusterLeaderless stays silent for a 30 s election and for a controller waiting to be added',
      interval: '15s',
      series: [
        series('edgeward_raft_voters', controllerTarget('ctrl1'), repeat(3, 32)),
        series('edgeward_raft_voters_connected', controllerTarget('ctrl1'), repeat(3, 32)),
        series('edgeward_raft_has_leader', controllerTarget('ctrl1'), [...repeat(1, 8), 0, 0, ...repeat(1, 22)]),
        series('edgeward_raft_voters', controllerTarget('ctrl3'), repeat(0, 32)),
        series('edgeward_raft_voters_connected', controllerTarget('ctrl3'), repeat(0, 32)),
        series('edgeward_raft_has_leader', controllerTarget('ctrl3'), repeat(0, 32)),
      ],
      checks: [
        { at: '3m', firing: [] },
        { at: '7m', firing: [] },
      ],
    },
  ],
};

const noLeaderFor = monitoringMixin.noControllerHealthy.for;
export const noControllerHealthy: AlertRule = {
  name: 'EdgewardNoControllerHealthy',
  expr: [
    'cluster:edgeward_controller_up:sum',
    `unless on(${byCluster})`,
    '  cluster:edgeward_raft_is_leader:sum > 0',
  ].join('\n'),
  for: noLeaderFor,
  detail: ({ label, value }) =>
    `No controller of cluster ${label('cluster')} has been the raft leader for more than ${noLeaderFor}; controllers answering scrapes: ${value}.`,
  rationale:
    `Only the leader answers 200 on /health-checks/controller/raft, so "no controller returns 200" is "no controller that answers scrapes leads", including when none answers at all. A follower's 429 is normal and never counted. ${noLeaderFor} outlasts a failover.`,
  tests: [
    {
      name: 'EdgewardNoControllerHealthy fires when every controller is up but none has led for over a minute',
      interval: '15s',
      series: testControllers.flatMap((id) => [
        series('up', controllerTarget(id), repeat(1, 24)),
        series('edgeward_raft_is_leader', controllerTarget(id), [...repeat(id === 'ctrl1' ? 1 : 0, 8), ...repeat(0, 16)]),
      ]),
      checks: [
        { at: '2m30s', firing: [] },
        { at: '4m', firing: [{ labels: cluster, value: '3' }] },
      ],
    },
    {
      name: 'EdgewardNoControllerHealthy fires when no controller answers at all',
      interval: '15s',
      series: testControllers.flatMap((id) => [
        series('up', controllerTarget(id), [...repeat(1, 8), ...repeat(0, 16)]),
        series('edgeward_raft_is_leader', controllerTarget(id), [...repeat(id === 'ctrl1' ? 1 : 0, 8), ...down(16)]),
      ]),
      checks: [{ at: '4m', firing: [{ labels: cluster, value: '0' }] }],
    },
    {
      name: 'EdgewardNoControllerHealthy stays silent while a killed leader is replaced',
      interval: '15s',
      series: [
        series('up', controllerTarget('ctrl1'), [...repeat(1, 8), 0, 0, ...repeat(1, 14)]),
        series('edgeward_raft_is_leader', controllerTarget('ctrl1'), [...repeat(1, 8), ...down(2), ...repeat(0, 14)]),
        ...(['ctrl2', 'ctrl3'] as const).flatMap((id) => [
          series('up', controllerTarget(id), repeat(1, 24)),
          series('edgeward_raft_is_leader', controllerTarget(id), [...repeat(0, 10), ...repeat(id === 'ctrl2' ? 1 : 0, 14)]),
        ]),
      ],
      checks: [
        { at: '3m', firing: [] },
        { at: '5m', firing: [] },
      ],
    },
  ],
};

const readOnlyFor = monitoringMixin.readOnly.for;
export const clusterReadOnly: AlertRule = {
  name: 'EdgewardClusterReadOnly',
  expr: `max by (${byController}) (${controllerSeries('edgeward_cluster_read_only')}) == 1`,
  for: readOnlyFor,
  detail: ({ label }) => `Controller ${label('controller')} of cluster ${label('cluster')} has been read-only for more than ${readOnlyFor}.`,
  rationale:
    'A rolling upgrade passes through read-only mode from the first member upgraded to the last (a minute or two for three controllers restarted one at a time); 5m lets a prompt upgrade finish and pages for a stray member or an upgrade left half-done.',
  tests: [
    {
      name: 'EdgewardClusterReadOnly fires when a controller stays read-only beyond an upgrade',
      interval: '15s',
      series: [
        series('edgeward_cluster_read_only', controllerTarget('ctrl1'), repeat(0, 44)),
        series('edgeward_cluster_read_only', controllerTarget('ctrl3'), [...repeat(0, 4), ...repeat(1, 40)]),
      ],
      checks: [
        { at: '5m30s', firing: [] },
        { at: '7m', firing: [{ labels: of('ctrl3') }] },
      ],
    },
    {
      name: 'EdgewardClusterReadOnly stays silent through a rolling upgrade',
      interval: '15s',
      series: testControllers.map((id) => series('edgeward_cluster_read_only', controllerTarget(id), [...repeat(0, 4), ...repeat(1, 12), ...repeat(0, 28)])),
      checks: [
        { at: '4m', firing: [] },
        { at: '8m', firing: [] },
      ],
    },
  ],
};

const quorumFor = monitoringMixin.quorumLost.for;
export const quorumLost: AlertRule = {
  name: 'EdgewardQuorumLost',
  expr: [
    '(',
    `  cluster:edgeward_raft_leader_voters_connected:max < on(${byCluster}) cluster:edgeward_raft_quorum_size:max`,
    ')',
    'or',
    '(',
    `  cluster:edgeward_raft_voters_connected:max < on(${byCluster}) cluster:edgeward_raft_quorum_size:max`,
    `  unless on(${byCluster}) cluster:edgeward_raft_leader_voters_connected:max`,
    ')',
  ].join('\n'),
  for: quorumFor,
  detail: ({ label, value }) =>
    `Cluster ${label('cluster')} has had fewer voters connected than a majority for more than ${quorumFor}; connected voters, in the leader's view or without a leader the best view: ${value}.`,
  rationale:
    `The leader's view is canonical (followers see part of the mesh); without a leader, the controller that sees the most voters. floor(voters/2)+1 is the majority. After a leader dies the followers may see only themselves until a candidate dials the other, so ${quorumFor}.`,
  tests: [
    {
      name: 'EdgewardQuorumLost fires when two of three voters are gone and no leader is left',
      interval: '15s',
      series: [
        series('up', controllerTarget('ctrl1'), repeat(1, 16)),
        series('edgeward_raft_voters', controllerTarget('ctrl1'), repeat(3, 16)),
        series('edgeward_raft_is_leader', controllerTarget('ctrl1'), [...repeat(1, 4), ...repeat(0, 12)]),
        series('edgeward_raft_voters_connected', controllerTarget('ctrl1'), [...repeat(3, 4), ...repeat(1, 12)]),
        ...(['ctrl2', 'ctrl3'] as const).flatMap((id) => [
          series('up', controllerTarget(id), [...repeat(1, 4), ...repeat(0, 12)]),
          series('edgeward_raft_voters', controllerTarget(id), [...repeat(3, 4), ...down(12)]),
          series('edgeward_raft_is_leader', controllerTarget(id), [...repeat(0, 4), ...down(12)]),
          series('edgeward_raft_voters_connected', controllerTarget(id), [...repeat(3, 4), ...down(12)]),
        ]),
      ],
      checks: [
        { at: '1m45s', firing: [] },
        { at: '3m', firing: [{ labels: cluster, value: '1' }] },
      ],
    },
    {
      name: 'EdgewardQuorumLost takes the leader\'s view when there is a leader',
      interval: '15s',
      series: [
        ...testControllers.flatMap((id) => [
          series('edgeward_raft_voters', controllerTarget(id), repeat(5, 16)),
          series('edgeward_raft_is_leader', controllerTarget(id), repeat(id === 'ctrl1' ? 1 : 0, 16)),
        ]),
        series('edgeward_raft_voters_connected', controllerTarget('ctrl1'), [...repeat(5, 4), ...repeat(2, 12)]),
        series('edgeward_raft_voters_connected', controllerTarget('ctrl2'), repeat(3, 16)),
        series('edgeward_raft_voters_connected', controllerTarget('ctrl3'), repeat(3, 16)),
      ],
      checks: [{ at: '3m', firing: [{ labels: cluster, value: '2' }] }],
    },
    {
      name: 'EdgewardQuorumLost stays silent while one voter of three is down',
      interval: '15s',
      series: [
        ...(['ctrl1', 'ctrl2'] as const).flatMap((id) => [
          series('edgeward_raft_voters', controllerTarget(id), repeat(3, 16)),
          series('edgeward_raft_is_leader', controllerTarget(id), repeat(id === 'ctrl1' ? 1 : 0, 16)),
          series('edgeward_raft_voters_connected', controllerTarget(id), [...repeat(3, 4), ...repeat(2, 12)]),
        ]),
        series('edgeward_raft_voters', controllerTarget('ctrl3'), [...repeat(3, 4), ...down(12)]),
        series('edgeward_raft_is_leader', controllerTarget('ctrl3'), [...repeat(0, 4), ...down(12)]),
        series('edgeward_raft_voters_connected', controllerTarget('ctrl3'), [...repeat(3, 4), ...down(12)]),
      ],
      checks: [{ at: '3m', firing: [] }],
    },
  ],
};

const { count: churnThreshold, window: churnWindow } = monitoringMixin.leadershipChurn;
export const leadershipChurn: AlertRule = {
  name: 'EdgewardLeadershipChurn',
  expr: `round(${leadershipGainedSeries}) >= ${churnThreshold}`,
  for: '1m',
  detail: ({ label, value }) => `Cluster ${label('cluster')} elected ${value} leaders in the last ${inWords(churnWindow)}.`,
  rationale: `A rolling restart of three controllers elects at most three leaders (when every restart hits the leader); ${churnThreshold} or more within ${inWords(churnWindow)} is churn. Counted across the cluster: each election is won on one controller, and a controller's first leadership (which creates its counter) counts too.`,
  tests: [
    {
      name: 'EdgewardLeadershipChurn fires after four elections within 15 minutes',
      interval: '1m',
      series: [
        series('up', controllerTarget('ctrl1'), repeat(1, 31)),
        series('up', controllerTarget('ctrl2'), repeat(1, 31)),
        series('edgeward_raft_leadership_gained_total', controllerTarget('ctrl1'), [...repeat(1, 18), ...repeat(2, 4), ...repeat(3, 9)]),
        // ctrl2 has never led: its counter appears with its first leadership.
        series('edgeward_raft_leadership_gained_total', controllerTarget('ctrl2'), [...repeat('missing', 16), ...repeat(1, 4), ...repeat(2, 11)]),
      ],
      checks: [
        { at: '21m', firing: [] },
        { at: '24m', firing: [{ labels: cluster, value: '4' }] },
      ],
    },
    {
      name: 'EdgewardLeadershipChurn stays silent for the three elections of an unlucky rolling restart',
      interval: '1m',
      series: [
        ...testControllers.map((id) => series('up', controllerTarget(id), repeat(1, 31))),
        series('edgeward_raft_leadership_gained_total', controllerTarget('ctrl1'), [...repeat(1, 24), ...repeat(2, 7)]),
        series('edgeward_raft_leadership_gained_total', controllerTarget('ctrl2'), [...repeat('missing', 16), ...repeat(1, 15)]),
        series('edgeward_raft_leadership_gained_total', controllerTarget('ctrl3'), [...repeat('missing', 20), ...repeat(1, 11)]),
      ],
      checks: [
        { at: '25m', firing: [] },
        { at: '30m', firing: [] },
      ],
    },
  ],
};
