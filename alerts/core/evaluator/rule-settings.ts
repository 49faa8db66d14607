// The thresholds and windows the evaluator applies, all durations in milliseconds. The config file's `rules:`
// section fills them, with the defaults and bounds documented in docs/alerts.md.

export interface RuleSettings {
  /** `state.is_leaderless` pages when no `state.has_leader` from the same controller follows within this. */
  readonly leaderlessTolerance: number;
  /** `state.ro` (or the "entering read-only mode" line) pages when no `state.rw` from the same controller follows
   * within this; 0 pages at once. */
  readonly readOnlyFor: number;
  /** No controller answering 200 on /health-checks/controller/raft for this long pages. */
  readonly noHealthyFor: number;
  /** Fewer than a majority of voters connected for this long pages. */
  readonly quorumLostFor: number;
  readonly peerFlapping: {
    /** Disconnects of one peer within `window` that warn. */
    readonly count: number;
    readonly window: number;
    /** A log line and an event about the same disconnect, this close in time, count once. */
    readonly pairWindow: number;
  };
  readonly leadershipChurn: {
    /** Leadership changes across the cluster within `window` that warn. */
    readonly count: number;
    readonly window: number;
    /** A `leadership.lost` and a `leadership.gained` of two controllers this close in time are one change. */
    readonly pairWindow: number;
  };
  /** A rate limiter queue above zero on every poll for this long warns. */
  readonly queueSustainedFor: number;
  /** A rate limiter window below its maximum and not growing for this long warns. */
  readonly windowShrinkingFor: number;
  readonly peerLatency: {
    /** The mean round trip of an interval is high when at least `factor` times the baseline... */
    readonly factor: number;
    /** ...and at least this many milliseconds above it. */
    readonly floor: number;
    /** High for this long, over at least `minHeartbeats` heartbeats, warns. */
    readonly sustainedFor: number;
    readonly minHeartbeats: number;
    /** Normal intervals whose median is the baseline; it needs at least 3 before anything is compared. */
    readonly baselineIntervals: number;
  };
  readonly commitLag: {
    /** Raft entries behind the most advanced controller... */
    readonly entries: number;
    /** ...or milliseconds since its newest event while another controller is ahead... */
    readonly behindFor: number;
    /** ...held this long, warns. */
    readonly sustainedFor: number;
  };
  /** A one-shot warning resolves this long after its last matching line. */
  readonly oneShotHold: number;
  /** A controller's metrics older than this (its polls failing) no longer count: its metric warnings resolve. */
  readonly metricsStaleAfter: number;
}

export interface EvaluatorSettings {
  /** Every configured controller id, in config order. */
  readonly controllers: readonly string[];
  /** Controllers with an event file: only they take part in commit lag. */
  readonly commitLagControllers: readonly string[];
  /** Controllers the config marks `preferredLeader: true`. */
  readonly preferredLeaders: readonly string[];
  readonly rules: RuleSettings;
}
