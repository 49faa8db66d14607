// The daemon's rules as data: which log lines and cluster events it reacts to, and what each does to the alert
// state. The matcher searches the raw bytes for the needles (a fast pre-filter); a line is a match of a rule only
// when, once parsed, it is the structured line the controller's own emitter writes: that `component`, that `msg`
// exactly (every alerting emitter writes a constant msg), and the fields the emitter sets. Text a client, router or peer supplied is logged
// in fields, never in `msg`, and only fields the controller itself decides (a code, an error's own start) are looked
// at, so no crafted frame type, token header or service name can raise an alert. The evaluator interprets the
// effects. The documented substrings (the spec's "Log lines for alerting" and TLS join errors) stay in the real
// lines verbatim; the emitter of each condition is named beside it.

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

/** One emitter's line: the needle anywhere in the raw line, then the parsed object checked strictly. */
export interface LineCondition {
  /** Pre-filter on the raw bytes; it must occur in every line the conditions below accept. */
  readonly needle: string;
  /** The line's `component` (the controller's logger that writes it). */
  readonly component: string;
  /** The line's `msg`, exactly as the emitter writes it. */
  readonly msg: string;
  /** Top-level string fields that must have exactly these values. */
  readonly fieldEquals?: Readonly<Record<string, string>>;
  /** Top-level string fields that must start with these values (an error message the controller composed). */
  readonly fieldStartsWith?: Readonly<Record<string, string>>;
  /** Top-level fields that must be strings (what the evaluator reads from the line, e.g. `peerId`). */
  readonly stringFields?: readonly string[];
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

/** A line whose documented text is its whole `msg`: that text is also the needle. */
const line = (component: string, msg: string, more: Partial<LineCondition> = {}): LineCondition => ({ needle: msg, component, msg, ...more });

// Every needle is one more pass over each chunk, so messages that share a distinctive substring share a needle;
// the parsed check tells them apart.
const readOnlyNeedle = 'read-only mode';
const preferredLeaderNeedle = 'preferred leader ';
const noLeaderError = 'ClusterHasNoLeaderError';
/** A write refused for want of a leader, as the controller logs the error it threw (cluster-proposer.ts). */
const writeRefused = (component: string, msg: string): LineCondition => ({
  needle: noLeaderError,
  component,
  msg,
  fieldStartsWith: { error: `${noLeaderError}:` },
});

export const logRules: readonly LogRule[] = [
  {
    // server/cluster/cluster-monitor.ts
    id: 'leaderless-log',
    conditions: [line('cluster', 'cluster running without leader for longer than configured threshold')],
    effect: { kind: 'raise', alert: 'EdgewardClusterLeaderless' },
  },
  {
    // server/cluster/cluster-monitor.ts
    id: 'read-only-entered-log',
    conditions: [line('cluster', 'entering read-only mode: different versions detected in cluster', { needle: readOnlyNeedle })],
    effect: { kind: 'raise', alert: 'EdgewardClusterReadOnly' },
  },
  {
    // server/cluster/cluster-monitor.ts
    id: 'read-only-exited-log',
    conditions: [line('cluster', 'exiting read-only mode: all connected members report the same version', { needle: readOnlyNeedle })],
    effect: { kind: 'clear', alert: 'EdgewardClusterReadOnly' },
  },
  // server/raft/transport/peer-network.ts
  { id: 'peer-disconnected-log', conditions: [line('peers', 'peer disconnected', { stringFields: ['peerId'] })], effect: { kind: 'peer-change', change: 'disconnected' } },
  { id: 'peer-connected-log', conditions: [line('peers', 'peer connected', { stringFields: ['peerId'] })], effect: { kind: 'peer-change', change: 'connected' } },
  {
    id: 'writes-refused-no-leader',
    conditions: [
      // server/web/error-handler.ts: the code is the controller's, from the error's type.
      { needle: 'CLUSTER_NO_LEADER', component: 'web', msg: 'request refused', fieldEquals: { code: 'CLUSTER_NO_LEADER' } },
      // server/agent/agent-server.ts (an operator's cluster command)
      writeRefused('agent', 'agent command failed'),
      // server/edge/login/password-failures.ts, server/edge/mfa-service.ts: a failed attempt could not be recorded
      writeRefused('auth', 'could not record a failed password attempt'),
      writeRefused('mfa', 'could not record a failed MFA code'),
      // server/controller/controller.ts: the API sessions' batched bookkeeping
      writeRefused('controller', 'api session activity flush failed'),
      writeRefused('controller', 'api session sweep failed'),
    ],
    effect: { kind: 'one-shot', alert: 'EdgewardWritesRefusedNoLeader' },
  },
  {
    // server/controller/controller.ts
    id: 'snapshot-restart-required',
    conditions: [line('controller', 'restored snapshot to initialized system, restart required')],
    effect: { kind: 'one-shot', alert: 'EdgewardSnapshotRestartRequired' },
  },
  {
    // server/raft/transport/peer-network.ts, with the texts of tls-failure-text.ts
    id: 'peer-tls-failure',
    conditions: [
      line('peers', 'peer TLS handshake failed: tls: error decrypting message', { needle: 'tls: error decrypting message' }),
      line('peers', 'peer TLS handshake failed: x509: certificate signed by unknown authority', { needle: 'x509: certificate signed by unknown authority' }),
      line('peers', 'peer TLS handshake failed: no certs presented matched the CA for this node', { needle: 'no certs presented matched the CA for this node' }),
      line('peers', 'peer connection refused: no certs presented matched the CA for this node', { needle: 'no certs presented matched the CA for this node' }),
    ],
    effect: { kind: 'one-shot', alert: 'EdgewardPeerTlsFailure' },
  },
  {
    // server/cluster/cluster-monitor.ts
    id: 'preferred-leader-transfer-failed',
    conditions: [line('cluster', 'leadership transfer to preferred leader failed, will try next', { needle: preferredLeaderNeedle })],
    effect: { kind: 'one-shot', alert: 'EdgewardPreferredLeaderTransferFailed' },
  },
  {
    // server/cluster/cluster-monitor.ts. Logged on every election of a cluster without preferred leaders, where it
    // is normal.
    id: 'preferred-leader-unavailable',
    conditions: [line('cluster', 'no preferred leader peers are connected, retaining leadership', { needle: preferredLeaderNeedle })],
    effect: { kind: 'one-shot', alert: 'EdgewardPreferredLeaderUnavailable', onlyWithPreferredLeaders: true },
  },
  // server/raft/node/raft-node.ts, server/raft/worker/worker-raft-node.ts
  { id: 'raft-node-failed', conditions: [line('raft', 'raft node stopped after a failure')], effect: { kind: 'one-shot', alert: 'EdgewardRaftNodeFailed' } },
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
