// Every alert edgeward raises, in one place: its name, whether it pages, what it says and where its runbook is.
// Two sources raise them: the alerts daemon (log lines, event files, health and metric polls) and Prometheus (the
// generated rules). An alert both can see has one name, so Alertmanager groups the two into one notification and
// the operator reads one runbook. The spec's "Alerting guidance" decides the severities: pages are leaderless,
// read-only, lost quorum and no healthy controller; everything else warns.

export type Severity = 'critical' | 'warning';
export type AlertSource = 'daemon' | 'prometheus';
/** What the `controller` label names: one controller, or the cluster as a whole (`controller="all"`). */
export type AlertScope = 'controller' | 'cluster';

export interface AlertDefinition {
  readonly name: string;
  readonly severity: Severity;
  readonly scope: AlertScope;
  readonly sources: readonly AlertSource[];
  /** Static text: the same for every instance of the alert. */
  readonly summary: string;
  /** What this instance means; each source fills in the controller, the cluster and the value in its own syntax. */
  readonly description: string;
}

/** The `controller` label of a cluster-scoped alert. */
export const clusterScopeController = 'all';

export const alertCatalogue = [
  // ---- pages ----------------------------------------------------------------------------------------------------
  {
    name: 'EdgewardClusterLeaderless',
    severity: 'critical',
    scope: 'controller',
    sources: ['daemon', 'prometheus'],
    summary: 'A controller has had no raft leader for longer than the leaderless threshold.',
    description: 'The controller sees no leader; writes fail with ClusterHasNoLeaderError until one is elected.',
  },
  {
    name: 'EdgewardNoControllerHealthy',
    severity: 'critical',
    scope: 'cluster',
    sources: ['daemon', 'prometheus'],
    summary: 'No controller of the cluster answers 200 on /health-checks/controller/raft.',
    description: 'No controller is a healthy leader: the cluster cannot take writes or new sessions.',
  },
  {
    name: 'EdgewardClusterReadOnly',
    severity: 'critical',
    scope: 'controller',
    sources: ['daemon', 'prometheus'],
    summary: 'A controller is in read-only mode: its connected members report different versions.',
    description: 'Writes through this controller fail with "unable to execute command. In a readonly state"; reads continue.',
  },
  {
    name: 'EdgewardQuorumLost',
    severity: 'critical',
    scope: 'cluster',
    sources: ['daemon', 'prometheus'],
    summary: 'Fewer than a majority of voters are connected: the cluster has lost quorum.',
    description: 'Too few voters are connected to elect a leader or commit writes.',
  },
  // ---- warnings -------------------------------------------------------------------------------------------------
  {
    name: 'EdgewardPeerFlapping',
    severity: 'warning',
    scope: 'controller',
    sources: ['daemon', 'prometheus'],
    summary: 'A peer channel between two controllers keeps disconnecting and reconnecting.',
    description: 'The channel to one peer closed repeatedly within the flapping window.',
  },
  {
    name: 'EdgewardLeadershipChurn',
    severity: 'warning',
    scope: 'cluster',
    sources: ['daemon', 'prometheus'],
    summary: 'Raft leadership changed several times within a short window.',
    description: 'Leadership was gained or lost repeatedly; writes stall during each election.',
  },
  {
    name: 'EdgewardRateLimiterQueueSustained',
    severity: 'warning',
    scope: 'controller',
    sources: ['daemon', 'prometheus'],
    summary: 'Raft commands have been queued in the leader\'s rate limiter without pause.',
    description: 'The raft rate limiter queue has stayed above zero; writes are waiting on the leader.',
  },
  {
    name: 'EdgewardRateLimiterWindowShrinking',
    severity: 'warning',
    scope: 'controller',
    sources: ['daemon', 'prometheus'],
    summary: 'The raft rate limiter window shrank: commands are timing out on the leader.',
    description: 'The adaptive concurrency window is below its maximum and falling.',
  },
  {
    name: 'EdgewardPeerLatencyJump',
    severity: 'warning',
    scope: 'controller',
    sources: ['daemon', 'prometheus'],
    summary: 'Heartbeat round trips to a peer controller jumped above their baseline.',
    description: 'peer.latency on one channel rose well above its recent level.',
  },
  {
    name: 'EdgewardCommitLagHigh',
    severity: 'warning',
    scope: 'controller',
    sources: ['daemon', 'prometheus'],
    summary: 'A controller has fallen behind the others in applying the raft log.',
    description: 'The controller\'s applied index (or its newest entity change event) trails the cluster\'s.',
  },
  {
    name: 'EdgewardWritesRefusedNoLeader',
    severity: 'warning',
    scope: 'controller',
    sources: ['daemon'],
    summary: 'Writes were refused with ClusterHasNoLeaderError.',
    description: 'A controller refused writes because the cluster had no leader.',
  },
  {
    name: 'EdgewardSnapshotRestartRequired',
    severity: 'warning',
    scope: 'controller',
    sources: ['daemon'],
    summary: 'A controller installed a snapshot from the leader and must restart.',
    description: 'The controller restored a snapshot over its data and exits for its supervisor to restart it.',
  },
  {
    name: 'EdgewardPeerTlsFailure',
    severity: 'warning',
    scope: 'controller',
    sources: ['daemon'],
    summary: 'A controller refused a peer\'s TLS connection: a node cannot join or reach the cluster.',
    description: 'A peer TLS handshake failed (unknown authority, no certificate, or an error decrypting).',
  },
  {
    name: 'EdgewardPreferredLeaderTransferFailed',
    severity: 'warning',
    scope: 'controller',
    sources: ['daemon'],
    summary: 'Handing leadership to a preferred leader failed.',
    description: 'A non-preferred leader could not transfer leadership to a preferred peer.',
  },
  {
    name: 'EdgewardPreferredLeaderUnavailable',
    severity: 'warning',
    scope: 'controller',
    sources: ['daemon'],
    summary: 'A non-preferred controller keeps leadership: no preferred leader is connected.',
    description: 'The cluster has preferred leaders, but none was connected when this controller took leadership.',
  },
  {
    name: 'EdgewardRaftNodeFailed',
    severity: 'warning',
    scope: 'controller',
    sources: ['daemon'],
    summary: 'A controller\'s raft node stopped after a storage or internal failure; the controller exits to restart.',
    description: 'The controller answered 503 and exited with code 4 after its raft node failed.',
  },
  {
    name: 'EdgewardRaftDiskGrowth',
    severity: 'warning',
    scope: 'controller',
    sources: ['prometheus'],
    summary: 'A controller\'s raft log keeps growing without snapshots compacting it.',
    description: 'The raft.db directory grows while no new snapshot is taken.',
  },
  {
    name: 'EdgewardScrapeTargetDown',
    severity: 'warning',
    scope: 'controller',
    sources: ['prometheus'],
    summary: 'Prometheus cannot scrape an edgeward process.',
    description: 'The target has been down; its metrics and the alerts that use them are blind.',
  },
  {
    name: 'EdgewardAlertDeliveryFailing',
    severity: 'warning',
    scope: 'cluster',
    sources: ['prometheus'],
    summary: 'The alerts daemon cannot deliver alerts to Alertmanager.',
    description: 'Deliveries from the alerts daemon keep failing; its alerts are queued, not delivered.',
  },
  {
    name: 'EdgewardCircuitDialFailures',
    severity: 'warning',
    scope: 'cluster',
    sources: ['prometheus'],
    summary: 'The overlay keeps failing to carry connections to their services.',
    description: 'Circuits fail for want of a terminator, a path over the links, or because a setup or the service address refused.',
  },
  {
    name: 'EdgewardSdkTerminatorsGone',
    severity: 'warning',
    scope: 'cluster',
    sources: ['prometheus'],
    summary: 'Every SDK-hosted terminator of a service is gone.',
    description: 'The applications hosting the service through an OpenZiti SDK (Bind) have all left; dials to it fail with NO_TERMINATORS.',
  },
  {
    name: 'EdgewardOidcRefreshFailures',
    severity: 'warning',
    scope: 'cluster',
    sources: ['prometheus'],
    summary: 'The controllers keep refusing OIDC token refreshes.',
    description: 'Clients with OIDC sessions cannot renew them: refreshes and token exchanges are refused at the token endpoint, and those clients must log in again.',
  },
  {
    name: 'EdgewardBackupsStopped',
    severity: 'warning',
    scope: 'controller',
    sources: ['prometheus'],
    summary: 'A controller with a backup schedule has written no backup for more than 2.5 intervals.',
    description: 'Its newest backup grows old: a restore after losing the cluster would lose every write since then.',
  },
  {
    name: 'EdgewardBackupsFailing',
    severity: 'warning',
    scope: 'controller',
    sources: ['prometheus'],
    summary: 'A controller\'s scheduled backups fail.',
    description: 'No scheduled backup succeeded in the last hour and at least one failed (a full or read-only disk, the backup folder\'s permissions).',
  },
] as const satisfies readonly AlertDefinition[];

export type AlertName = (typeof alertCatalogue)[number]['name'];

export function alertDefinition(name: AlertName): AlertDefinition {
  const found = alertCatalogue.find((alert) => alert.name === name);
  if (!found) throw new Error(`no alert named ${name}`);
  return found;
}

/** The runbook heading's anchor: GitHub's slug of a heading that is the alert's name. */
export function runbookAnchor(name: string): string {
  return name.toLowerCase();
}

/**
 * Where runbook_url points unless `--runbook-base` (or the daemon's runbookBaseUrl) says otherwise: the runbooks page
 * of the installed appliance's status page at its default address (docs/status-page.md, `GET /runbooks`), an
 * absolute URL a browser opens from an alert. Set it to the status page's address as the operators' phones reach it.
 */
export const defaultRunbookBase = 'http://127.0.0.1:9110/runbooks';

export function runbookUrl(name: string, base: string = defaultRunbookBase): string {
  return `${base}#${runbookAnchor(name)}`;
}
