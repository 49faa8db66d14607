#!/usr/bin/env bash
# Runs the benchmarks, each writing its part of bench/RESULTS.md: the HTTP benchmark (bench/run.ts; installs wrk
# and etcd first when missing, via scripts/ensure-deps.sh), the raft benchmark (bench/raft-bench.ts), then the
# three-node cluster against a three-node etcd cluster (bench/cluster-vs-etcd.ts), then a login flood against a
# three-node cluster with password hashing's queue off and on (bench/login-flood.ts), then the alerts daemon's
# matching against grep and its delivery to a real Alertmanager (bench/alerts-matching.ts), then the status page's data
# endpoint with 100k identities and its first paint in Chromium (bench/dashboard-bench.ts), then throughput and added
# latency of 1 and 16 connections through the overlay (a proxy-mode router, a link, a hosting router; three routers;
# and an SDK dial through `edgeward tunnel run`, plain and end-to-end encrypted) against a direct loopback connection,
# socat forwarding and a pair of stunnel relays with one TLS hop between them, the fairness of 8 streams through the
# overlay and the stunnel pair, new TCP connections per second through socat, the stunnel pair and the overlay, and
# verdicts against issue 42's targets (bench/overlay-bench.ts), then the raft simulator's seeds per second
# on one worker thread and on every CPU, and its planted-bug suite (bench/raft-sim-bench.ts), then end-to-end
# encryption of 64 KiB Data bodies against a plain copy of them (bench/e2e-crypto-bench.ts), then an OIDC login
# storm: OIDC cert logins against legacy cert logins on a three-node cluster, raft commands per login and the p99 of
# writes meanwhile (bench/oidc-login-storm.ts), then online snapshots of 100k identities: each snapshot's time and size,
# and the p99 of writes while snapshots are taken against without (bench/snapshot-bench.ts), then the controller's
# model memory from 0 to 1M identities (heap, RSS, bytes per identity and by part, GC) and the p99 of writes at the full
# model against an empty one, in-process (bench/controller-memory-bench.ts), then circuit setup at
# rate: new connections per second and setup p50/p99 through one ingress router (its tunnel listener and an SDK dial)
# at a large policy model, against new connections through socat (bench/circuit-rate-bench.ts).
# scale (not part of all: it runs for an hour or more): the controller at ten times "Large": 1,000,000 identities,
# 5,000 edge router rows, 2,000 services, 2,500 service and 2,500 edge router policies loaded into a three-node cluster
# (entity rates, time per 100k identities, memory as it grows), list and login figures, writes against an empty
# cluster, snapshot and restore, a follower caught up from empty, and circuits through a router against socat
# (bench/scale-bench.ts), then /metrics with a gauge of thousands of series in-process, the SDK's gauge against metric
# data (bench/metrics-exposition-bench.ts; prints its table, copied into the scale notes by hand), then the
# scale-routers step.
# scale-routers (not part of all: it runs for half an hour or more): 5,000 simulated routers from one process
# (bench/router-simulator.ts) hosting 150,000 terminators on a three-node cluster holding the 10x-Large policy set:
# enrollment rate, time to connect, terminators listed over time on the leader and a follower, controller CPU and RSS
# idle without and with the routers connected, the router list's latency (bench/router-sim-bench.ts).
# lists (not part of all: it loads 1M identities): filtered identity lists on one controller over HTTPS holding
# 1,000,000 identities restored from a generated backup, p50/p99 and CPU per request against a detail read, and the
# first sort by name and first text search each beside a back-to-back detail read (the longest event-loop block while
# their index is built), the controller's RSS and V8 heap used after its start and after the lists (bench/list-bench.ts); then, in-process, the longest event-loop block of the name order and text
# index built in one piece against in slices (and the text index with its trigram postings against without), the CPU
# of text searches without postings against with them and each index's bytes per row, and the routers per identity by
# the policy walk against the index (bench/list-build-bench.ts; prints its tables, copied into the list notes by hand),
# and the identities the relationship lists answer, every identity matched against the role attribute index
# (bench/relationship-list-bench.ts, likewise).
# edge-model-push (not part of all): what one edge model change costs with routers connected, routers sent the whole
# model on every change (the baseline) against routers sent deltas, in alternating rounds of fresh simulated routers
# on a three-node cluster holding the 10x-Large service and policy set (bench/edge-model-push-bench.ts).
# Usage: bench/run.sh [all|http|raft|cluster|login-flood|alerts|dashboard|overlay|raft-sim|e2e-crypto|oidc-login-storm|snapshot|memory|circuits|scale|scale-routers|lists|edge-model-push]
# (all, the default, runs the first thirteen, in that order, and stops at the first failure)
# Env: BENCH_SECONDS, measured seconds per HTTP load, for the HTTP and cluster steps (default 10); BENCH_HTTP_ROUNDS,
# rounds of (a′) then (b) in the HTTP step (1 to 9, default 3); BENCH_RAFT_SECONDS, seconds per raft measurement (default 5); BENCH_CLUSTER_ROUNDS, rounds of cluster write loads
# (1 to 9, default 3); BENCH_RAFT_THREAD=1 runs the cluster step with `cluster.raftThread: true`; BENCH_PIN and
# BENCH_CPU_PROF, see bench/run.ts; BENCH_FLOOD_SECONDS (default 30),
# BENCH_QUIET_SECONDS (default 10), BENCH_WRITE_RATE, BENCH_FLOOD_CONNECTIONS and BENCH_FLOOD_VARIANTS, see
# bench/login-flood.ts; BENCH_ALERTS_MB (default 500), BENCH_ALERTS_ROUNDS (default 3) and BENCH_ALERTS_LINES
# (default 200), see bench/alerts-matching.ts; BENCH_DASHBOARD_IDENTITIES (default 100000), BENCH_DASHBOARD_ROUNDS
# (default 3), BENCH_DASHBOARD_SECONDS (default 10), BENCH_DASHBOARD_CONNECTIONS (default 8), BENCH_DASHBOARD_PAINTS
# (default 5), BENCH_DASHBOARD_POLL_MS (default 1000) and BENCH_DASHBOARD_BUILD (default 1), see bench/dashboard-bench.ts;
# BENCH_OVERLAY_ROUNDS (1 to 9, default 3), BENCH_OVERLAY_SECONDS (default 5; also the fairness and new-connection
# measurements' seconds) and BENCH_OVERLAY_LATENCY_SECONDS
# (default 3), see bench/overlay-bench.ts (where BENCH_CPU_PROF profiles the routers and the tunneler); BENCH_SIM_SEEDS (default 300),
# BENCH_SIM_ROUNDS (default 3) and BENCH_SIM_LONG_SEEDS (default none: the 100,000-seed runs are
# BENCH_SIM_LONG_SEEDS=100000 bench/run.sh raft-sim), see bench/raft-sim-bench.ts; BENCH_E2E_MB (MB per measurement,
# default 256) and BENCH_E2E_ROUNDS (1 to 9, default 3), see bench/e2e-crypto-bench.ts; BENCH_STORM_SECONDS (default
# 10), BENCH_STORM_ROUNDS (1 to 9, default 3), BENCH_STORM_CONCURRENCY (default 8) and BENCH_STORM_WRITE_RATE
# (default 20), see bench/oidc-login-storm.ts; BENCH_SNAPSHOT_IDENTITIES (default 100000), BENCH_SNAPSHOT_ROUNDS (1 to 9,
# default 3), BENCH_SNAPSHOT_SECONDS (default 15), BENCH_SNAPSHOT_WRITE_RATE (default 50) and BENCH_SNAPSHOT_CONTROLLERS
# (1 or 3, default 3) and BENCH_SNAPSHOT_GAP_SECONDS (default 0: snapshots back to back), see bench/snapshot-bench.ts;
# BENCH_MEMORY_SIZES (default 100000,250000,500000,1000000), BENCH_MEMORY_ROUNDS (1 to 9, default 3),
# BENCH_MEMORY_PROBE_SECONDS (default 10), BENCH_MEMORY_WRITE_RATE (default 100), BENCH_MEMORY_NODE_FLAGS and
# BENCH_MEMORY_HEAP_SNAPSHOT (a path: a heap snapshot of the full model), see
# bench/controller-memory-bench.ts;
# BENCH_CIRCUIT_IDENTITIES (default 100000), BENCH_CIRCUIT_ROUTERS (default 5000), BENCH_CIRCUIT_SERVICES (default
# 2000), BENCH_CIRCUIT_POLICIES (default 2500), BENCH_CIRCUIT_ROUNDS (1 to 9, default 3), BENCH_CIRCUIT_SECONDS
# (default 10) and BENCH_CIRCUIT_CONCURRENCY (default 8,32), see bench/circuit-rate-bench.ts (BENCH_CPU_PROF profiles
# the controller, the routers and the tunneler);
# BENCH_SCALE_ROUTERS (default 5000), BENCH_SCALE_TERMINATORS_PER_ROUTER (default 30), BENCH_ROUTERSIM_SERVICES (default
# 2000), BENCH_ROUTERSIM_SERVICE_POLICIES (default 2500), BENCH_ROUTERSIM_EDGE_ROUTER_POLICIES (default 2500),
# BENCH_ROUTERSIM_IDENTITIES (default 1000), BENCH_ROUTERSIM_IDLE_SECONDS (default 60), BENCH_ROUTERSIM_METRICS_SECONDS
# (default 60), BENCH_ROUTERSIM_TERMINATOR_SECONDS (default 900), BENCH_ROUTERSIM_ENROLL_CONCURRENCY (default 16) and BENCH_ROUTERSIM_ROUTERS_CHANGED (default 1; 0: older routers' hello),
# see bench/router-sim-bench.ts;
# BENCH_SCALE_IDENTITIES (default 1000000), BENCH_SCALE_SERVICES (2000), BENCH_SCALE_SERVICE_POLICIES (2500),
# BENCH_SCALE_EDGE_ROUTER_POLICIES (2500), BENCH_SCALE_EDGE_ROUTERS (5000), BENCH_SCALE_GROUPS (1000),
# BENCH_SCALE_ROUNDS (1 to 9, default 3), BENCH_SCALE_WRITE_SECONDS (10), BENCH_SCALE_CIRCUIT_SECONDS (10),
# BENCH_SCALE_CIRCUIT_CONCURRENCY (8), BENCH_SCALE_CONNECTIONS (32) and BENCH_SCALE_LOAD_SECONDS (default 300 + 1 per
# 300 identities), see bench/scale-bench.ts; BENCH_METRICS_SERIES (default 2000,5000) and BENCH_METRICS_ROUNDS (default
# 3), see bench/metrics-exposition-bench.ts;
# BENCH_LIST_IDENTITIES (default 1000000), BENCH_LIST_ROUNDS (1 to 9, default 3) and BENCH_LIST_REQUESTS (per query
# per round, default 20), see bench/list-bench.ts (BENCH_CPU_PROF profiles the controller); BENCH_RELATION_ROWS (default
# 1000000) and BENCH_RELATION_ROUNDS (1 to 9, default 3), see bench/relationship-list-bench.ts;
# BENCH_PUSH_ROUTERS (routers a round, default 500), BENCH_PUSH_ROUNDS (rounds of each variant, 1 to 5, default 2),
# BENCH_PUSH_CHANGES (default 5), BENCH_PUSH_SERVICES (2000), BENCH_PUSH_SERVICE_POLICIES (2500) and
# BENCH_PUSH_EDGE_ROUTER_POLICIES (2500), see bench/edge-model-push-bench.ts.
# Each step runs under `timeout` in its own process group, with a limit a little above the step's own watchdog: on
# the limit, or on Ctrl-C or SIGTERM here, the whole group (the step and everything it started) gets SIGTERM, so the
# step can stop its servers and remove its temp folders, and SIGKILL 30 s later if anything is still there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

what="${1:-all}"
case "$what" in
  all | http | raft | cluster | login-flood | alerts | dashboard | overlay | raft-sim | e2e-crypto | oidc-login-storm | snapshot | memory | circuits | scale | scale-routers | lists | edge-model-push) ;;
  *)
    echo "usage: bench/run.sh [all|http|raft|cluster|login-flood|alerts|dashboard|overlay|raft-sim|e2e-crypto|oidc-login-storm|snapshot|memory|circuits|scale|scale-routers|lists|edge-model-push]" >&2
    exit 2
    ;;
esac

# Whole seconds from 1 to 3600, as run.ts and raft-bench.ts accept.
seconds_from() {
  local name="$1" value="${!1:-$2}"
  if ! [[ "$value" =~ ^[1-9][0-9]{0,3}$ ]] || ((value > 3600)); then
    echo "bench: $name must be a whole number of seconds from 1 to 3600, not \"$value\"" >&2
    return 2
  fi
  echo "$value"
}
http_seconds="$(seconds_from BENCH_SECONDS 10)"
raft_seconds="$(seconds_from BENCH_RAFT_SECONDS 5)"
cluster_rounds="${BENCH_CLUSTER_ROUNDS:-3}"
http_rounds="${BENCH_HTTP_ROUNDS:-3}"
if ! [[ "$http_rounds" =~ ^[1-9]$ ]]; then
  echo "bench: BENCH_HTTP_ROUNDS must be a whole number of rounds from 1 to 9, not \"$http_rounds\"" >&2
  exit 2
fi
flood_seconds="$(seconds_from BENCH_FLOOD_SECONDS 30)"
quiet_seconds="$(seconds_from BENCH_QUIET_SECONDS 10)"
if ! [[ "$cluster_rounds" =~ ^[1-9]$ ]]; then
  echo "bench: BENCH_CLUSTER_ROUNDS must be a whole number of rounds from 1 to 9, not \"$cluster_rounds\"" >&2
  exit 2
fi
overlay_rounds="${BENCH_OVERLAY_ROUNDS:-3}"
overlay_seconds="$(seconds_from BENCH_OVERLAY_SECONDS 5)"
overlay_latency_seconds="$(seconds_from BENCH_OVERLAY_LATENCY_SECONDS 3)"
if ! [[ "$overlay_rounds" =~ ^[1-9]$ ]]; then
  echo "bench: BENCH_OVERLAY_ROUNDS must be a whole number of rounds from 1 to 9, not \"$overlay_rounds\"" >&2
  exit 2
fi

step_pid=""
on_signal() {
  trap - INT TERM
  if [ -n "$step_pid" ]; then
    echo "bench: interrupted; stopping the running step" >&2
    kill -TERM "$step_pid" 2>/dev/null || true
    wait "$step_pid" 2>/dev/null || true
  fi
  exit 130
}
trap on_signal INT TERM

# run_step <name> <limit in seconds> <command...>
run_step() {
  local name="$1" limit="$2" status=0
  shift 2
  echo "bench: $name (limit ${limit} s)" >&2
  # In the background so that this shell's traps run while it waits.
  timeout --kill-after=30 "$limit" "$@" &
  step_pid=$!
  wait "$step_pid" || status=$?
  step_pid=""
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "bench: $name ran past its ${limit} s limit and was stopped" >&2
  elif [ "$status" -ne 0 ]; then
    echo "bench: $name failed (exit status $status)" >&2
  fi
  return "$status"
}

node_tsx=(node --import "file://$root/node_modules/tsx/dist/loader.mjs")

if [ "$what" = all ] || [ "$what" = http ]; then
  run_step "installing missing dependencies" 900 "$root/scripts/ensure-deps.sh" bench
  # run.ts's own watchdog: 4 loads x (2 s warm-up + measurement + 25 s) + 150 s; this limit leaves it a minute more.
  run_step "HTTP benchmark" $(((2 + 2 * http_rounds) * (2 + http_seconds + 25) + 4 + http_seconds + http_rounds + 150 + 60)) "${node_tsx[@]}" bench/run.ts
fi
if [ "$what" = all ] || [ "$what" = raft ]; then
  if [ "$what" = raft ]; then
    run_step "installing missing dependencies" 900 "$root/scripts/ensure-deps.sh" npm
  fi
  # raft-bench.ts's own watchdog: 6 measurements x BENCH_RAFT_SECONDS + 90 s; this limit leaves it a minute more.
  run_step "raft benchmark" $((6 * raft_seconds + 90 + 60)) "${node_tsx[@]}" bench/raft-bench.ts
fi
if [ "$what" = all ] || [ "$what" = cluster ]; then
  if [ "$what" = cluster ]; then
    run_step "installing missing dependencies" 900 "$root/scripts/ensure-deps.sh" bench
  fi
  # cluster-vs-etcd.ts's own watchdog: 240 s to start + rounds x 4 loads x (2 s warm-up + measurement + 35 s) + 10
  # failover trials x (20 s + 60 s recovery) + 60 s to stop; this limit leaves it a minute more.
  run_step "cluster benchmark (edgeward vs etcd)" $((240 + cluster_rounds * 4 * (2 + http_seconds + 35) + 10 * 80 + 60 + 60)) "${node_tsx[@]}" bench/cluster-vs-etcd.ts
fi
if [ "$what" = all ] || [ "$what" = login-flood ]; then
  if [ "$what" = login-flood ]; then
    run_step "installing missing dependencies" 900 "$root/scripts/ensure-deps.sh" bench
  fi
  # login-flood.ts's own watchdog: 60 s + 2 variants x (120 s + quiet + flood + 2 x 15 s + 60 s); this limit leaves
  # it a minute more.
  run_step "login flood (password hashing queue off and on)" $((60 + 2 * (120 + quiet_seconds + flood_seconds + 30 + 60) + 60)) "${node_tsx[@]}" bench/login-flood.ts
fi
if [ "$what" = all ] || [ "$what" = alerts ]; then
  if [ "$what" = alerts ]; then
    run_step "installing missing dependencies" 900 "$root/scripts/ensure-deps.sh" bench
  fi
  # alerts-matching.ts's own watchdog: 120 s + MiB / 50 x (2 + 2 x rounds) + 1.5 s per timed line; this limit leaves
  # it a minute more.
  alerts_mb="${BENCH_ALERTS_MB:-500}"
  alerts_rounds="${BENCH_ALERTS_ROUNDS:-3}"
  alerts_lines="${BENCH_ALERTS_LINES:-200}"
  for name in alerts_mb alerts_rounds alerts_lines; do
    if ! [[ "${!name}" =~ ^[1-9][0-9]{0,4}$ ]]; then
      echo "bench: BENCH_${name^^} must be a whole number, not \"${!name}\"" >&2
      exit 2
    fi
  done
  run_step "alerts daemon (matching vs grep, delivery to Alertmanager)" $((120 + alerts_mb * (2 + 2 * alerts_rounds) / 50 + alerts_lines * 3 / 2 + 60)) "${node_tsx[@]}" bench/alerts-matching.ts
fi
if [ "$what" = all ] || [ "$what" = dashboard ]; then
  if [ "$what" = dashboard ]; then
    run_step "installing missing dependencies" 900 "$root/scripts/ensure-deps.sh" bench
  fi
  # dashboard-bench.ts's own watchdog: 600 s to build + 180 s for the cluster + identities / 200 + the history (600
  # polls) + 120 s + rounds x 4 x (seconds + 20) + 300 s for the paints and the rest; this limit leaves it a minute more.
  dashboard_identities="${BENCH_DASHBOARD_IDENTITIES:-100000}"
  dashboard_rounds="${BENCH_DASHBOARD_ROUNDS:-3}"
  dashboard_seconds="${BENCH_DASHBOARD_SECONDS:-10}"
  dashboard_poll_ms="${BENCH_DASHBOARD_POLL_MS:-1000}"
  for name in dashboard_identities dashboard_rounds dashboard_seconds dashboard_poll_ms; do
    if ! [[ "${!name}" =~ ^[1-9][0-9]{0,7}$ ]]; then
      echo "bench: BENCH_${name^^} must be a whole number, not \"${!name}\"" >&2
      exit 2
    fi
  done
  run_step "status page (data endpoint with 100k identities, first paint in Chromium)" \
    $((600 + 180 + dashboard_identities / 200 + 600 * dashboard_poll_ms / 1000 + 120 + dashboard_rounds * 4 * (dashboard_seconds + 20) + 300 + 60)) \
    "${node_tsx[@]}" bench/dashboard-bench.ts
fi
if [ "$what" = all ] || [ "$what" = overlay ]; then
  if [ "$what" = overlay ]; then
    run_step "installing missing dependencies" 900 "$root/scripts/ensure-deps.sh" bench
  fi
  if ! command -v socat >/dev/null 2>&1; then
    echo "bench: the overlay step compares against socat, which is not installed: apt-get install socat" >&2
    exit 1
  fi
  if ! [ -x /usr/bin/stunnel4 ]; then
    echo "bench: the overlay step compares against a pair of stunnel relays, and /usr/bin/stunnel4 is not installed: apt-get install stunnel4" >&2
    exit 1
  fi
  # overlay-bench.ts's own watchdog: 240 s to set up + rounds x (7 paths x 2 connection counts x (1 s warm-up +
  # seconds + 30 s, then 1 s + latency seconds + 30 s) + 2 fairness paths x (1 s + seconds + 60 s) + 3 new-connection
  # paths x (seconds + 60 s)) + 60 s to stop; this limit leaves it a minute more.
  run_step "overlay (1 and 16 connections: direct, socat, the stunnel pair, the overlay, the SDK paths; fairness; new connections)" \
    $((240 + overlay_rounds * (7 * 2 * (1 + overlay_seconds + 30 + 1 + overlay_latency_seconds + 30) + 2 * (1 + overlay_seconds + 60) + 3 * (overlay_seconds + 60)) + 60 + 60)) \
    "${node_tsx[@]}" bench/overlay-bench.ts
fi
if [ "$what" = all ] || [ "$what" = raft-sim ]; then
  if [ "$what" = raft-sim ]; then
    run_step "installing missing dependencies" 900 "$root/scripts/ensure-deps.sh" npm
  fi
  # Rounds x 2 node counts x 2 worker counts x seeds at 10 seeds/s at worst, the planted bugs (12 x 2000 seeds at
  # worst, 30 seeds/s), and the long runs at 20 seeds/s, plus 10 minutes.
  sim_seeds="${BENCH_SIM_SEEDS:-300}"
  sim_rounds="${BENCH_SIM_ROUNDS:-3}"
  sim_long="${BENCH_SIM_LONG_SEEDS:-0}"
  for name in sim_seeds sim_rounds sim_long; do
    if ! [[ "${!name}" =~ ^[0-9]{1,7}$ ]]; then
      echo "bench: BENCH_${name^^} must be a whole number, not \"${!name}\"" >&2
      exit 2
    fi
  done
  run_step "raft simulator (seeds per second, planted bugs)" \
    $((sim_rounds * 4 * sim_seeds / 10 + 12 * 2000 / 30 + 2 * sim_long / 20 + 600)) \
    "${node_tsx[@]}" bench/raft-sim-bench.ts
fi
if [ "$what" = all ] || [ "$what" = e2e-crypto ]; then
  # e2e-crypto-bench.ts: (rounds + a warm-up) x 5 variants x BENCH_E2E_MB at no less than 20 MB/s, plus a minute.
  e2e_mb="${BENCH_E2E_MB:-256}"
  e2e_rounds="${BENCH_E2E_ROUNDS:-3}"
  if ! [[ "$e2e_mb" =~ ^[1-9][0-9]{0,3}$ ]] || ! [[ "$e2e_rounds" =~ ^[1-9]$ ]]; then
    echo "bench: BENCH_E2E_MB must be a whole number of MB from 1 to 4096 and BENCH_E2E_ROUNDS from 1 to 9" >&2
    exit 2
  fi
  run_step "end-to-end encryption (64 KiB Data bodies against a plain copy)" $(((e2e_rounds + 1) * 5 * e2e_mb / 20 + 60)) \
    "${node_tsx[@]}" bench/e2e-crypto-bench.ts
fi
if [ "$what" = all ] || [ "$what" = oidc-login-storm ]; then
  storm_seconds="$(seconds_from BENCH_STORM_SECONDS 10)"
  storm_rounds="${BENCH_STORM_ROUNDS:-3}"
  if ! [[ "$storm_rounds" =~ ^[1-9]$ ]]; then
    echo "bench: BENCH_STORM_ROUNDS must be a whole number of rounds from 1 to 9, not \"$storm_rounds\"" >&2
    exit 2
  fi
  # oidc-login-storm.ts's own watchdog: 180 s + rounds x 2 flows x (seconds + 2 x 15 s + 10 s) + 60 s; this limit
  # leaves it a minute more.
  run_step "OIDC login storm (OIDC cert logins against legacy cert logins)" $((180 + storm_rounds * 2 * (storm_seconds + 40) + 60 + 60)) \
    "${node_tsx[@]}" bench/oidc-login-storm.ts
fi
if [ "$what" = all ] || [ "$what" = snapshot ]; then
  snapshot_identities="${BENCH_SNAPSHOT_IDENTITIES:-100000}"
  snapshot_rounds="${BENCH_SNAPSHOT_ROUNDS:-3}"
  snapshot_seconds="$(seconds_from BENCH_SNAPSHOT_SECONDS 15)"
  if ! [[ "$snapshot_identities" =~ ^[1-9][0-9]{0,6}$ ]] || ((snapshot_identities > 1000000)) || ! [[ "$snapshot_rounds" =~ ^[1-9]$ ]]; then
    echo "bench: BENCH_SNAPSHOT_IDENTITIES must be a whole number from 1 to 1000000 and BENCH_SNAPSHOT_ROUNDS from 1 to 9" >&2
    exit 2
  fi
  if [ "$what" = snapshot ]; then
    run_step "installing missing dependencies" 900 "$root/scripts/ensure-deps.sh" bench
  fi
  # snapshot-bench.ts's own watchdog: 240 s to start + identities / 200 + rounds x 2 x (seconds + 60 s) + 60 s; this
  # limit leaves it a minute more.
  run_step "online snapshots (100k identities: time and size, write p99 with and without)" \
    $((240 + snapshot_identities / 200 + snapshot_rounds * 2 * (snapshot_seconds + 60) + 60 + 60)) \
    "${node_tsx[@]}" bench/snapshot-bench.ts
fi
if [ "$what" = all ] || [ "$what" = memory ]; then
  memory_rounds="${BENCH_MEMORY_ROUNDS:-3}"
  memory_probe_seconds="$(seconds_from BENCH_MEMORY_PROBE_SECONDS 10)"
  if ! [[ "$memory_rounds" =~ ^[1-9]$ ]]; then
    echo "bench: BENCH_MEMORY_ROUNDS must be a whole number of rounds from 1 to 9, not \"$memory_rounds\"" >&2
    exit 2
  fi
  # controller-memory-bench.ts's own watchdog: 120 s + the largest size / 2,000 + / 5,000 s + rounds x 2 x (probe +
  # 30 s) + 300 s (at most 2,000,000 identities: 1,400 s); this limit leaves it a minute more.
  run_step "controller memory (0 to 1M identities in-process; write p99 full against empty)" \
    $((120 + 1400 + memory_rounds * 2 * (memory_probe_seconds + 30) + 300 + 60)) \
    "${node_tsx[@]}" bench/controller-memory-bench.ts
fi
if [ "$what" = all ] || [ "$what" = circuits ]; then
  circuit_identities="${BENCH_CIRCUIT_IDENTITIES:-100000}"
  circuit_routers="${BENCH_CIRCUIT_ROUTERS:-5000}"
  circuit_services="${BENCH_CIRCUIT_SERVICES:-2000}"
  circuit_policies="${BENCH_CIRCUIT_POLICIES:-2500}"
  circuit_rounds="${BENCH_CIRCUIT_ROUNDS:-3}"
  circuit_seconds="$(seconds_from BENCH_CIRCUIT_SECONDS 10)"
  circuit_concurrency="${BENCH_CIRCUIT_CONCURRENCY:-8,32}"
  for name in circuit_identities circuit_routers circuit_services circuit_policies; do
    if ! [[ "${!name}" =~ ^[1-9][0-9]{0,6}$ ]]; then
      echo "bench: BENCH_${name^^} must be a whole number, not \"${!name}\"" >&2
      exit 2
    fi
  done
  if ! [[ "$circuit_rounds" =~ ^[1-9]$ ]] || ! [[ "$circuit_concurrency" =~ ^[0-9]+(,[0-9]+)*$ ]]; then
    echo "bench: BENCH_CIRCUIT_ROUNDS must be from 1 to 9 and BENCH_CIRCUIT_CONCURRENCY whole numbers separated by commas" >&2
    exit 2
  fi
  if ! command -v socat >/dev/null; then
    echo "bench: the circuits step compares against socat, which is not installed: apt-get install socat" >&2
    exit 1
  fi
  circuit_levels=$(($(tr -cd , <<<"$circuit_concurrency" | wc -c) + 1))
  # circuit-rate-bench.ts's own watchdog: 300 s to start + identities / 300 + other rows / 50 + (rounds + a warm-up)
  # x 3 paths x concurrencies x (seconds + 15 s) + 60 s to stop; this limit leaves it a minute more.
  run_step "circuit setup rate (tunnel listener and SDK dials at a large model, against socat)" \
    $((300 + circuit_identities / 300 + (circuit_routers + circuit_services + 2 * circuit_policies) / 50 + (circuit_rounds + 1) * 3 * circuit_levels * (circuit_seconds + 15) + 60 + 60)) \
    "${node_tsx[@]}" bench/circuit-rate-bench.ts
fi
if [ "$what" = scale ]; then
  scale_identities="${BENCH_SCALE_IDENTITIES:-1000000}"
  scale_rows=$((${BENCH_SCALE_SERVICES:-2000} + ${BENCH_SCALE_SERVICE_POLICIES:-2500} + ${BENCH_SCALE_EDGE_ROUTER_POLICIES:-2500} + ${BENCH_SCALE_EDGE_ROUTERS:-5000}))
  scale_rounds="${BENCH_SCALE_ROUNDS:-3}"
  scale_write_seconds="$(seconds_from BENCH_SCALE_WRITE_SECONDS 10)"
  scale_circuit_seconds="$(seconds_from BENCH_SCALE_CIRCUIT_SECONDS 10)"
  scale_load_seconds="${BENCH_SCALE_LOAD_SECONDS:-$((300 + (scale_identities + 299) / 300))}"
  if ! [[ "$scale_identities" =~ ^[1-9][0-9]{0,6}$ ]] || ((scale_identities > 2000000)) || ! [[ "$scale_rounds" =~ ^[1-9]$ ]] || ! [[ "$scale_load_seconds" =~ ^[1-9][0-9]{0,4}$ ]]; then
    echo "bench: BENCH_SCALE_IDENTITIES must be a whole number from 1 to 2000000, BENCH_SCALE_ROUNDS from 1 to 9 and BENCH_SCALE_LOAD_SECONDS a whole number of seconds" >&2
    exit 2
  fi
  run_step "installing missing dependencies" 900 "$root/scripts/ensure-deps.sh" bench
  # scale-bench.ts's own watchdog, its phases' limits summed: 240 s to start + 120 s + rows / 20 + the load's seconds
  # (default 300 s + identities / 300) + 180 s + 600 s of reads + 300 s + rounds x 2 x (write seconds + 40 s) + 300 s + rounds x 2 x (circuit seconds +
  # 20 s) + 600 s snapshot + 600 s catch-up + 900 s restore + 120 s; this limit leaves it a minute more.
  run_step "scale (10x Large: loading, memory, reads, logins, writes, snapshot, restore, catch-up, circuits)" \
    $((240 + 120 + (scale_rows + 19) / 20 + scale_load_seconds + 180 + 600 + 300 + scale_rounds * 2 * (scale_write_seconds + 40) + 300 + scale_rounds * 2 * (scale_circuit_seconds + 20) + 600 + 600 + 900 + 120 + 60)) \
    "${node_tsx[@]}" bench/scale-bench.ts
  run_step "scale: /metrics with a gauge of thousands of series, the SDK's gauge against metric data (in-process)" 300 \
    "${node_tsx[@]}" bench/metrics-exposition-bench.ts
fi
if [ "$what" = scale-routers ] || [ "$what" = scale ]; then
  sim_routers="${BENCH_SCALE_ROUTERS:-5000}"
  sim_entities=$((${BENCH_ROUTERSIM_SERVICES:-2000} + ${BENCH_ROUTERSIM_SERVICE_POLICIES:-2500} + ${BENCH_ROUTERSIM_EDGE_ROUTER_POLICIES:-2500} + ${BENCH_ROUTERSIM_IDENTITIES:-1000}))
  sim_idle="$(seconds_from BENCH_ROUTERSIM_IDLE_SECONDS 60)"
  sim_wait="$(seconds_from BENCH_ROUTERSIM_TERMINATOR_SECONDS 900)"
  if ! [[ "$sim_routers" =~ ^[1-9][0-9]{0,4}$ ]] || ((sim_routers > 20000)); then
    echo "bench: BENCH_SCALE_ROUTERS must be a whole number from 1 to 20000, not \"$sim_routers\"" >&2
    exit 2
  fi
  # router-sim-bench.ts's own watchdog: 240 s + entities / 50 + routers / 3 + the terminator wait + 2 idle windows +
  # 300 s; this limit leaves it a minute more.
  run_step "router simulator (5,000 routers, 150,000 terminators on a three-node cluster)" \
    $((240 + sim_entities / 50 + sim_routers / 3 + sim_wait + 2 * sim_idle + 300 + 60)) \
    "${node_tsx[@]}" bench/router-sim-bench.ts
fi
if [ "$what" = lists ]; then
  list_identities="${BENCH_LIST_IDENTITIES:-1000000}"
  list_rounds="${BENCH_LIST_ROUNDS:-3}"
  list_requests="${BENCH_LIST_REQUESTS:-20}"
  if ! [[ "$list_identities" =~ ^[1-9][0-9]{0,6}$ ]] || ! [[ "$list_rounds" =~ ^[1-9]$ ]] || ! [[ "$list_requests" =~ ^[1-9][0-9]{0,2}$ ]]; then
    echo "bench: BENCH_LIST_IDENTITIES must be a whole number, BENCH_LIST_ROUNDS from 1 to 9 and BENCH_LIST_REQUESTS from 1 to 999" >&2
    exit 2
  fi
  # list-bench.ts's own watchdog: 600 s + 3 s per 5,000 identities + rounds x 10 queries x requests x 15 s + the two
  # first-build windows (BENCH_LIST_BUILD_WINDOW, default 20 s, + 60 s each); this limit leaves it a minute more.
  list_window="${BENCH_LIST_BUILD_WINDOW:-20}"
  if ! [[ "$list_window" =~ ^[1-9][0-9]{0,2}$ ]]; then
    echo "bench: BENCH_LIST_BUILD_WINDOW must be a whole number of seconds from 1 to 300" >&2
    exit 2
  fi
  run_step "lists (filtered identity lists at 1M identities, the first sort and text build beside a ticker)" $((600 + list_identities * 3 / 5000 + list_rounds * 10 * list_requests * 15 + 2 * (list_window + 60) + 60)) \
    "${node_tsx[@]}" bench/list-bench.ts
  # list-build-bench.ts's own watchdog is 20 minutes; this limit leaves it a minute more.
  run_step "lists: index build blocks in-process, one piece against slices (BENCH_LIST_BUILD_ROWS, default 1M)" 1260 \
    "${node_tsx[@]}" bench/list-build-bench.ts
  # relationship-list-bench.ts's own watchdog is 10 minutes.
  run_step "lists: relationship lists in-process, every identity matched against the role index (BENCH_RELATION_ROWS, default 1M)" 660 \
    "${node_tsx[@]}" bench/relationship-list-bench.ts
fi
if [ "$what" = edge-model-push ]; then
  push_routers="${BENCH_PUSH_ROUTERS:-500}"
  push_rounds="${BENCH_PUSH_ROUNDS:-2}"
  push_changes="${BENCH_PUSH_CHANGES:-5}"
  push_entities=$((${BENCH_PUSH_SERVICES:-2000} + ${BENCH_PUSH_SERVICE_POLICIES:-2500} + ${BENCH_PUSH_EDGE_ROUTER_POLICIES:-2500}))
  if ! [[ "$push_routers" =~ ^[1-9][0-9]{0,3}$ ]] || ! [[ "$push_rounds" =~ ^[1-5]$ ]] || ! [[ "$push_changes" =~ ^[1-9][0-9]?$ ]]; then
    echo "bench: BENCH_PUSH_ROUTERS must be a whole number from 1 to 5000, BENCH_PUSH_ROUNDS from 1 to 5 and BENCH_PUSH_CHANGES from 1 to 50" >&2
    exit 2
  fi
  # edge-model-push-bench.ts's own watchdog: 240 s + entities / 50 + 2 x rounds x routers / 3 + 2 x rounds x (60 s +
  # changes x 120 s) + 120 s; this limit leaves it a minute more.
  run_step "edge model pushes (whole models against deltas)" $((240 + push_entities / 50 + 2 * push_rounds * push_routers / 3 + 2 * push_rounds * (60 + push_changes * 120) + 120 + 60)) \
    "${node_tsx[@]}" bench/edge-model-push-bench.ts
fi
