#!/usr/bin/env bash
# Installs what a fresh clone is missing: Debian packages (as root, via apt-get) and npm packages (npm ci).
# Usage: ensure-deps.sh demo|test|npm|bench
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
purpose="${1:-test}"

debian_packages=(openssl curl ca-certificates)
case "$purpose" in
  # The appliance runs next to Debian's Prometheus and Alertmanager; the tests check rules, routing and alerts
  # against the real ones (promtool, amtool). Debian's Chromium: the status page's browser tests drive it with
  # playwright-core (never a downloaded browser).
  demo|test) debian_packages+=(prometheus prometheus-alertmanager chromium) ;;
  bench) debian_packages+=(wrk etcd-server etcd-client prometheus prometheus-alertmanager chromium) ;;
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

stamp="$root/node_modules/.edgeward-installed"
if [ ! -f "$stamp" ] || [ "$root/package-lock.json" -nt "$stamp" ]; then
  echo "edgeward: installing npm packages (npm ci)" >&2
  (cd "$root" && npm ci --no-audit --no-fund --loglevel=error >&2)
  touch "$stamp"
fi
