// The Prometheus names that tools outside the process rely on: the generated alert and recording rules, the
// alerts daemon's metric polls, the dashboards and the status page. The controller's exposition and the alerts
// daemon's are each tested against this list, so a rename breaks a test here rather than an alert in production.
// Names are as Prometheus sees them (the `edgeward_` prefix, units last, `_total` on counters).

export type MetricType = 'gauge' | 'counter' | 'histogram';

export interface MetricContract {
  readonly type: MetricType;
  /** Labels every series of the metric carries (beyond those Prometheus adds: job, instance, and our target labels). */
  readonly labels: readonly string[];
}

/** What every controller's `/metrics` exposes. */
export const controllerMetrics = {
  // The spec's five.
  edgeward_raft_rate_limiter_queue_size: { type: 'gauge', labels: [] },
  edgeward_raft_rate_limiter_window_size: { type: 'gauge', labels: [] },
  edgeward_raft_rate_limiter_work_timer_seconds: { type: 'histogram', labels: [] },
  edgeward_peer_latency_seconds: { type: 'histogram', labels: ['channel_id'] },
  edgeward_peer_queue_time_seconds: { type: 'histogram', labels: ['channel_id'] },
  // Raft as this controller sees it.
  edgeward_raft_term: { type: 'gauge', labels: [] },
  edgeward_raft_commit_index: { type: 'gauge', labels: [] },
  edgeward_raft_applied_index: { type: 'gauge', labels: [] },
  edgeward_raft_last_log_index: { type: 'gauge', labels: [] },
  edgeward_raft_is_leader: { type: 'gauge', labels: [] },
  /** 1 while this controller knows a leader, 0 while it has none. */
  edgeward_raft_has_leader: { type: 'gauge', labels: [] },
  /** 1, labelled with the leader's id, while this controller knows a leader; absent otherwise. */
  edgeward_raft_leader_info: { type: 'gauge', labels: ['leader_id'] },
  /** Voters in this controller's copy of the cluster configuration. */
  edgeward_raft_voters: { type: 'gauge', labels: [] },
  /** Voters this controller is connected to, itself included: on the leader, the quorum it can reach. */
  edgeward_raft_voters_connected: { type: 'gauge', labels: [] },
  /** Times this controller became leader. */
  edgeward_raft_leadership_gained_total: { type: 'counter', labels: [] },
  /** Times this controller saw the leader change (to another controller, or to none). */
  edgeward_raft_leader_changes_total: { type: 'counter', labels: [] },
  /** 1 while this controller is read-only (a connected member reports another version). */
  edgeward_cluster_read_only: { type: 'gauge', labels: [] },
  edgeward_raft_snapshot_index: { type: 'gauge', labels: [] },
  edgeward_raft_snapshot_size_bytes: { type: 'gauge', labels: [] },
  /** Unix time of the newest snapshot on disk; 0 before the first. */
  edgeward_raft_snapshot_timestamp_seconds: { type: 'gauge', labels: [] },
  /** Bytes under `<cluster.dataDir>/raft.db`. */
  edgeward_raft_log_bytes: { type: 'gauge', labels: [] },
  /** Bytes under `<cluster.dataDir>/snapshots`. */
  edgeward_raft_snapshots_bytes: { type: 'gauge', labels: [] },
  /** Per peer controller id: times it became connected (its first channel opened) and disconnected (its last channel
   * closed), the moments of the `peer connected`/`peer disconnected` log lines and cluster events. */
  edgeward_peer_connects_total: { type: 'counter', labels: ['peer_id'] },
  edgeward_peer_disconnects_total: { type: 'counter', labels: ['peer_id'] },
  /** Always 1; the labels carry the software version (the string compared for read-only mode) and Node's. */
  edgeward_build_info: { type: 'gauge', labels: ['version', 'node_version'] },
  // The edge APIs.
  edgeward_http_request_duration_seconds: { type: 'histogram', labels: ['api', 'status_class'] },
  /** Requests by route template (`/identities/:id`, never a raw path), method and status code. */
  edgeward_http_requests_total: { type: 'counter', labels: ['api', 'route', 'method', 'status'] },
  /** Primary authentications: method `password`, `cert`, `ext-jwt`; result `success`, `failure`, `throttled`. */
  edgeward_authentications_total: { type: 'counter', labels: ['method', 'result'] },
  /** Wrong TOTP or recovery codes, on login and on the enrollment routes. */
  edgeward_mfa_code_failures_total: { type: 'counter', labels: [] },
  edgeward_api_sessions: { type: 'gauge', labels: [] },
  // The OIDC provider.
  /** Token endpoint outcomes: grant `authorization_code`, `refresh_token`, `token_exchange` (`access_token`,
   * `end_session` for revocations); result `issued`, `refreshed`, `refused`, `revoked`. */
  edgeward_oidc_tokens_total: { type: 'counter', labels: ['grant', 'result'] },
  /** Authorization requests on this controller whose login has not finished. */
  edgeward_oidc_authorization_requests_pending: { type: 'gauge', labels: [] },
  /** Signing keys published in the cluster (current and retired). */
  edgeward_oidc_signing_keys: { type: 'gauge', labels: [] },
  // Online backups of the model (cluster.backup, agent controller snapshot, POST /database/snapshot).
  /** Unix time the model was read for the last successful backup; 0 until the first. */
  edgeward_backup_last_success_timestamp_seconds: { type: 'gauge', labels: [] },
  edgeward_backup_last_size_bytes: { type: 'gauge', labels: [] },
  edgeward_backup_last_duration_seconds: { type: 'gauge', labels: [] },
  /** `cluster.backup.interval` in seconds; 0 when the schedule is off. */
  edgeward_backup_interval_seconds: { type: 'gauge', labels: [] },
  /** Backups by trigger `schedule` or `request` and result `success` or `failure`; all four from 0. */
  edgeward_backups_total: { type: 'counter', labels: ['trigger', 'result'] },
  // The data plane.
  /** Circuit events this controller wrote: event_type `created`, `deleted`, `failed`. */
  edgeward_circuit_events_total: { type: 'counter', labels: ['event_type'] },
  /** Failed circuits by cause: the refusal code (`NO_DIAL_POLICY`, `INVALID_POSTURE`, `NO_TERMINATORS`, …) or `SETUP_FAILED`. */
  edgeward_circuit_failures_total: { type: 'counter', labels: ['cause'] },
  // The Node.js runtime.
  edgeward_nodejs_eventloop_delay_seconds: { type: 'histogram', labels: [] },
  edgeward_nodejs_heap_used_bytes: { type: 'gauge', labels: [] },
  edgeward_nodejs_heap_total_bytes: { type: 'gauge', labels: [] },
  edgeward_process_resident_memory_bytes: { type: 'gauge', labels: [] },
  edgeward_process_cpu_seconds_total: { type: 'counter', labels: [] },
  /** Unix time the process started: its uptime is the scrape time minus this. */
  edgeward_process_start_time_seconds: { type: 'gauge', labels: [] },
  edgeward_nodejs_gc_duration_seconds: { type: 'histogram', labels: ['kind'] },
} as const satisfies Record<string, MetricContract>;

/** What the alerts daemon's own `/metrics` exposes. */
export const alertsDaemonMetrics = {
  edgeward_alerts_lines_read_total: { type: 'counter', labels: ['file_kind'] },
  edgeward_alerts_rule_matches_total: { type: 'counter', labels: ['rule'] },
  edgeward_alerts_firing: { type: 'gauge', labels: ['alertname', 'severity'] },
  edgeward_alerts_deliveries_total: { type: 'counter', labels: ['result'] },
  edgeward_alerts_deliveries_failed_total: { type: 'counter', labels: [] },
  /** Alerts waiting to reach Alertmanager (queued while it is down). */
  edgeward_alerts_delivery_queue: { type: 'gauge', labels: [] },
  /** Commit lag of each controller in raft entries: the highest raftIndex any controller wrote minus its own. */
  edgeward_alerts_commit_lag_entries: { type: 'gauge', labels: ['controller'] },
  /** Seconds since each controller's newest entity change event, while any controller writes newer ones. */
  edgeward_alerts_commit_lag_seconds: { type: 'gauge', labels: ['controller'] },
  /** 1 when the controller's last `/health-checks/controller/raft` answered 200 (the healthy leader). */
  edgeward_alerts_controller_raft_health_ok: { type: 'gauge', labels: ['controller'] },
  /** 1 when the controller answered its last health poll at all (200 or 429). */
  edgeward_alerts_controller_reachable: { type: 'gauge', labels: ['controller'] },
  /** Lines and events the daemon skipped: `reason` is `not-json`, `not-object`, `oversized`, `no-raft-index`, ... */
  edgeward_alerts_records_skipped_total: { type: 'counter', labels: ['file_kind', 'reason'] },
} as const satisfies Record<string, MetricContract>;

export type ControllerMetricName = keyof typeof controllerMetrics;
export type AlertsDaemonMetricName = keyof typeof alertsDaemonMetrics;
