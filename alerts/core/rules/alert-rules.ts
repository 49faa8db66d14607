// The daemon's rules as data: which log lines and cluster events it reacts to, and what each does to the alert
// state. The matcher searches the raw bytes for the needles; a line is a match of a rule only when it also meets
// the rule's conditions once parsed (the substring in `msg`, a field's value). The evaluator interprets the effects.
// The substrings are the spec's "Log lines for alerting" and TLS join errors, verbatim.

import type { AlertName } from '../../catalogue/alert-catalogue.ts';

/** Alerts whose state follows a record that sets them and one that clears them. */
export type StateAlert = 'EdgewardClusterLeaderless' | 'EdgewardClusterReadOnly';

/** Alerts raised by a single log line and resolved by themselves after the hold time. */
export type OneShotAlert =
  | 'EdgewardWritesRefusedNoLeader'
  | 'EdgewardSnapshotRestartRequired'
  | 'EdgewardPeerTlsFailure'
  | 'EdgewardPreferredLeaderTransferFailed'
  | 'EdgewardPreferredLeaderUnavailable'
  | 'EdgewardRaftNodeFailed';

export type Effect =
  /** The alert fires now (the controller has already waited, or the state is page-worthy at once). */
  | { readonly kind: 'raise'; readonly alert: StateAlert }
  /** The alert resolves (or its pending start is cancelled). */
  | { readonly kind: 'clear'; readonly alert: StateAlert }
  /** `state.is_leaderless`: the leaderless page fires unless a `state.has_leader` follows within the tolerance. */
  | { readonly kind: 'leaderless-pending' }
  | { readonly kind: 'one-shot'; readonly alert: OneShotAlert; readonly onlyWithPreferredLeaders?: boolean }
  /** Counted per peer for flapping; never an alert by itself. */
  | { readonly kind: 'peer-change'; readonly change: 'connected' | 'disconnected' }
  /** Counted across the cluster for churn; never an alert by itself. */
  | { readonly kind: 'leadership-change'; readonly change: 'gained' | 'lost' };

/** One way a line can match: the needle anywhere in the raw line, plus conditions on the parsed JSON. */
export interface LineCondition {
  readonly needle: string;
  /** The parsed `msg` must contain this; a line that is not a JSON object then never matches. */
  readonly msgIncludes?: string;
  /** Top-level string fields that must have exactly these values. */
  readonly fieldEquals?: Readonly<Record<string, string>>;
}

export interface LogRule {
  /** The `rule` label of edgeward_alerts_rule_matches_total. */
  readonly id: string;
  /** Any one of these makes the line a match. */
  readonly conditions: readonly LineCondition[];
  readonly effect: Effect;
}

export interface EventRule {
  readonly id: string;
  /** The cluster event's `eventType`. */
  readonly eventType: string;
  readonly effect: Effect;
}

/** The `msg` substring is also the needle. */
const inMsg = (text: string): LineCondition => ({ needle: text, msgIncludes: text });

// Every needle is one more pass over each chunk, so two messages that share a distinctive substring share a
// needle; the `msg` condition tells them apart. The trailing space leaves out "transferring leadership to preferred
// leader", which ends there and alerts on nothing.
const readOnlyNeedle = 'read-only mode';
const preferredLeaderNeedle = 'preferred leader ';

export const logRules: readonly LogRule[] = [
  {
    id: 'leaderless-log',
    conditions: [inMsg('cluster running without leader for longer than configured threshold')],
    effect: { kind: 'raise', alert: 'EdgewardClusterLeaderless' },
  },
  {
    id: 'read-only-entered-log',
    conditions: [{ needle: readOnlyNeedle, msgIncludes: 'entering read-only mode' }],
    effect: { kind: 'raise', alert: 'EdgewardClusterReadOnly' },
  },
  {
    id: 'read-only-exited-log',
    conditions: [{ needle: readOnlyNeedle, msgIncludes: 'exiting read-only mode' }],
    effect: { kind: 'clear', alert: 'EdgewardClusterReadOnly' },
  },
  { id: 'peer-disconnected-log', conditions: [inMsg('peer disconnected')], effect: { kind: 'peer-change', change: 'disconnected' } },
  { id: 'peer-connected-log', conditions: [inMsg('peer connected')], effect: { kind: 'peer-change', change: 'connected' } },
  {
    id: 'writes-refused-no-leader',
    conditions: [
      { needle: 'ClusterHasNoLeaderError' },
      { needle: 'CLUSTER_NO_LEADER', msgIncludes: 'request refused', fieldEquals: { code: 'CLUSTER_NO_LEADER' } },
    ],
    effect: { kind: 'one-shot', alert: 'EdgewardWritesRefusedNoLeader' },
  },
  {
    id: 'snapshot-restart-required',
    conditions: [inMsg('restored snapshot to initialized system, restart required')],
    effect: { kind: 'one-shot', alert: 'EdgewardSnapshotRestartRequired' },
  },
  {
    id: 'peer-tls-failure',
    conditions: [
      inMsg('tls: error decrypting message'),
      inMsg('x509: certificate signed by unknown authority'),
      inMsg('no certs presented matched the CA for this node'),
    ],
    effect: { kind: 'one-shot', alert: 'EdgewardPeerTlsFailure' },
  },
  {
    id: 'preferred-leader-transfer-failed',
    conditions: [{ needle: preferredLeaderNeedle, msgIncludes: 'leadership transfer to preferred leader failed, will try next' }],
    effect: { kind: 'one-shot', alert: 'EdgewardPreferredLeaderTransferFailed' },
  },
  {
    // Logged on every election of a cluster without preferred leaders, where it is normal.
    id: 'preferred-leader-unavailable',
    conditions: [{ needle: preferredLeaderNeedle, msgIncludes: 'no preferred leader peers are connected, retaining leadership' }],
    effect: { kind: 'one-shot', alert: 'EdgewardPreferredLeaderUnavailable', onlyWithPreferredLeaders: true },
  },
  { id: 'raft-node-failed', conditions: [inMsg('raft node stopped after a failure')], effect: { kind: 'one-shot', alert: 'EdgewardRaftNodeFailed' } },
];

export const eventRules: readonly EventRule[] = [
  { id: 'state-is-leaderless-event', eventType: 'state.is_leaderless', effect: { kind: 'leaderless-pending' } },
  { id: 'state-has-leader-event', eventType: 'state.has_leader', effect: { kind: 'clear', alert: 'EdgewardClusterLeaderless' } },
  { id: 'state-ro-event', eventType: 'state.ro', effect: { kind: 'raise', alert: 'EdgewardClusterReadOnly' } },
  { id: 'state-rw-event', eventType: 'state.rw', effect: { kind: 'clear', alert: 'EdgewardClusterReadOnly' } },
  { id: 'peer-disconnected-event', eventType: 'peer.disconnected', effect: { kind: 'peer-change', change: 'disconnected' } },
  { id: 'peer-connected-event', eventType: 'peer.connected', effect: { kind: 'peer-change', change: 'connected' } },
  { id: 'leadership-gained-event', eventType: 'leadership.gained', effect: { kind: 'leadership-change', change: 'gained' } },
  { id: 'leadership-lost-event', eventType: 'leadership.lost', effect: { kind: 'leadership-change', change: 'lost' } },
];

/** The rule id under which entity change events are counted (they feed commit lag). */
export const entityChangeRuleId = 'entity-change-event';

/** Needles of the event files: every cluster event line, and the newest entity change line of each chunk. */
export const clusterEventNeedle = '"namespace":"cluster"';
export const entityChangeNeedle = '"namespace":"entityChange"';

export function logRule(id: string): LogRule {
  const rule = logRules.find((candidate) => candidate.id === id);
  if (!rule) throw new Error(`no log rule ${id}`);
  return rule;
}

export function eventRuleFor(eventType: string): EventRule | undefined {
  return eventRules.find((rule) => rule.eventType === eventType);
}

/** Every alert the daemon itself can raise, for checks against the catalogue. */
export const daemonAlerts: readonly AlertName[] = [
  'EdgewardClusterLeaderless',
  'EdgewardNoControllerHealthy',
  'EdgewardClusterReadOnly',
  'EdgewardQuorumLost',
  'EdgewardPeerFlapping',
  'EdgewardLeadershipChurn',
  'EdgewardRateLimiterQueueSustained',
  'EdgewardRateLimiterWindowShrinking',
  'EdgewardPeerLatencyJump',
  'EdgewardCommitLagHigh',
  'EdgewardWritesRefusedNoLeader',
  'EdgewardSnapshotRestartRequired',
  'EdgewardPeerTlsFailure',
  'EdgewardPreferredLeaderTransferFailed',
  'EdgewardPreferredLeaderUnavailable',
  'EdgewardRaftNodeFailed',
];
