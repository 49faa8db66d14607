#!/usr/bin/env bash
# Installs wrk when missing (apt-get, via scripts/ensure-deps.sh), then runs the HTTP benchmark, which writes
# bench/RESULTS.md. BENCH_SECONDS sets the measured seconds per load (default 10).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/ensure-deps.sh" bench
cd "$root"
exec node --import "file://$root/node_modules/tsx/dist/loader.mjs" bench/run.ts "$@"
