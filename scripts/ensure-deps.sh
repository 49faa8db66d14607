#!/usr/bin/env bash
# Installs what a fresh clone is missing: Debian packages (as root, via apt-get) and npm packages (npm ci).
# Usage: ensure-deps.sh demo|test|install|npm|bench
# Only `./edgeward demo`, `./edgeward test` and `./edgeward install` run it. One run at a time: it holds an exclusive
# lock on $root/.edgeward-deps.lock for its whole run, so a second one waits, then finds everything installed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
purpose="${1:-test}"

lock="$root/.edgeward-deps.lock"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$lock"
  if ! flock -n 9; then
    echo "edgeward: another ./edgeward is installing dependencies; waiting for it ($lock) ..." >&2
    flock 9
  fi
else
  echo "edgeward: flock (util-linux) is missing: installing without a lock" >&2
fi

debian_packages=(openssl curl ca-certificates)
case "$purpose" in
  # An installed appliance runs next to Debian's Prometheus and Alertmanager; its units report readiness through
  # systemd-notify.
  install) debian_packages=(openssl ca-certificates systemd prometheus prometheus-alertmanager) ;;
  # The appliance runs next to Debian's Prometheus and Alertmanager; the tests check rules, routing and alerts
  # against the real ones (promtool, amtool). Debian's Chromium: the status page's browser tests drive it with
  # playwright-core (never a downloaded browser).
  demo) debian_packages+=(prometheus prometheus-alertmanager chromium) ;;
  # The installation test also verifies the units (systemd-analyze), boots them under systemd, and listens for
  # their notifications on a datagram socket (python3). The overlay benchmark's stunnel pair is tested with the real
  # stunnel4 (bench/stunnel-pair.test.ts).
  test) debian_packages+=(prometheus prometheus-alertmanager chromium systemd python3 nftables stunnel4) ;;
  bench) debian_packages+=(wrk etcd-server etcd-client prometheus prometheus-alertmanager chromium socat stunnel4) ;;
esac

missing=()
if [ "$purpose" != "npm" ] && command -v dpkg-query >/dev/null 2>&1; then
  for p in "${debian_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
if ((${#missing[@]})); then
  echo "edgeward: installing Debian packages: ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  echo "edgeward: Node.js 20.20 or newer is required (found $(node --version))" >&2
  exit 1
fi

# The stamp holds the checksum of the package-lock.json it was installed from: a checkout that rewrites the file with
# the same content (a new worktree, a branch switch and back) installs nothing; a changed lock installs again.
stamp="$root/node_modules/.edgeward-installed"
lock_sum="$(sha256sum < "$root/package-lock.json")"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  echo "edgeward: installing npm packages (npm ci)" >&2
  (cd "$root" && npm ci --no-audit --no-fund --loglevel=error >&2)
  printf '%s\n' "$lock_sum" > "$stamp"
fi
