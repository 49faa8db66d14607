// Everything the evaluator remembers, as plain JSON data: the daemon persists it with the file offsets, so that a
// restart neither forgets a pending condition nor raises an alert again for lines it has already read. Times are
// milliseconds since the epoch.

import type { AlertName } from '../../catalogue/alert-catalogue.ts';
import type { HealthStatus } from './observations.ts';
import type { Occurrence } from './occurrences.ts';

export interface FiringAlert {
  readonly alert: AlertName;
  readonly labels: Readonly<Record<string, string>>;
  readonly startsAt: number;
  readonly value?: number;
  readonly detail: string;
}

export interface MetricsSnapshot {
  readonly at: number;
  readonly isLeader?: boolean;
  readonly voters?: number;
  readonly votersConnected?: number;
}

export interface ChannelLatency {
  /** When the totals below were read. */
  at: number;
  sum: number;
  count: number;
  /** Mean round trips (seconds) of recent normal intervals, oldest first. */
  baseline: number[];
  /** Start of the run of high intervals, if one is going on. */
  highSince?: number;
  /** Heartbeats in that run. */
  highCount: number;
}

export interface CommitLagEntry {
  /** Highest raftIndex this controller wrote. */
  index?: number;
  /** Timestamp of its newest entity change event. */
  at?: number;
  /** With no event of its own yet: when another controller first wrote one. */
  behindSince?: number;
  /** Start of the current run of lag above the thresholds. */
  laggingSince?: number;
}

export interface EvaluatorState {
  readonly version: 1;
  /** instanceKey → the firing instance. */
  readonly firing: Record<string, FiringAlert>;
  /** controller → the time of the newest leaderless/has-leader record applied, and a pending start. */
  readonly leaderless: Record<string, { lastAt: number; pendingSince?: number }>;
  /** controller → the newest read-only/read-write record applied, and a read-only start held for `readOnlyFor`. */
  readonly readOnly: Record<string, { lastAt: number; pendingSince?: number; pendingWhat?: string }>;
  /** instanceKey of a one-shot warning → its last match. */
  readonly oneShot: Record<string, number>;
  /** controller → peer → disconnects. */
  readonly peerDisconnects: Record<string, Record<string, Occurrence[]>>;
  readonly leadershipChanges: Occurrence[];
  /** Peers that cluster events showed as preferred leaders. */
  readonly preferredPeers: Record<string, true>;
  readonly health: Record<string, { status: HealthStatus; at: number }>;
  noHealthySince?: number;
  readonly metrics: Record<string, MetricsSnapshot>;
  quorumLostSince?: number;
  /** controller → first poll of the current run with a non-empty queue. */
  readonly queue: Record<string, number>;
  readonly window: Record<string, { max: number; previous: number; since?: number }>;
  /** controller → channel → latency state. */
  readonly latency: Record<string, Record<string, ChannelLatency>>;
  readonly commitLag: Record<string, CommitLagEntry>;
}

export function emptyEvaluatorState(): EvaluatorState {
  return {
    version: 1,
    firing: {},
    leaderless: {},
    readOnly: {},
    oneShot: {},
    peerDisconnects: {},
    leadershipChanges: [],
    preferredPeers: {},
    health: {},
    metrics: {},
    queue: {},
    window: {},
    latency: {},
    commitLag: {},
  };
}

/** A restored state without its poll results: they describe the moment they were taken, so the windows over polls
 * (no healthy controller, quorum, the rate limiter, latency) begin again after a restart, while what the files
 * said (firing alerts, pending records, counts in windows, commit lag) is kept. */
export function withoutPollResults(state: EvaluatorState): EvaluatorState {
  const { noHealthySince: _health, quorumLostSince: _quorum, ...rest } = state;
  return { ...rest, health: {}, metrics: {}, queue: {}, window: {}, latency: {} };
}
