#!/usr/bin/env bash
# Typecheck, lint the module boundaries, then run every *.test.ts with Node's test runner.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
echo "== typecheck (tsc --noEmit)"
node_modules/.bin/tsc --noEmit -p tsconfig.json
# The status page (Next.js, its own compiler settings: JSX, bundler resolution), excluded from the root config.
node_modules/.bin/tsc --noEmit -p dashboard/tsconfig.check.json
echo "== lint (module boundaries)"
node --import "file://$root/node_modules/tsx/dist/loader.mjs" scripts/lint-boundaries.ts
if [ "$#" -gt 0 ]; then files=("$@"); else
  mapfile -t files < <(find server router common sdk tunnel alerts grafana dashboard bench test scripts -name '*.test.ts' -not -path '*/node_modules/*' -not -path '*/.next/*' 2>/dev/null | sort)
fi
echo "== tests (${#files[@]} files)"
tap="$(mktemp)"
trap 'rm -f "$tap"' EXIT
status=0
node --import "file://$root/node_modules/tsx/dist/loader.mjs" --test --test-concurrency=2 --test-timeout=300000 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$tap" "${files[@]}" || status=$?
passed="$(grep -E '^# pass [0-9]+' "$tap" | tail -1 | awk '{print $3}')"
failed="$(grep -E '^# fail [0-9]+' "$tap" | tail -1 | awk '{print $3}')"
skipped="$(grep -E '^# skipped [0-9]+' "$tap" | tail -1 | awk '{print $3}')"
echo "tests: ${passed:-0} passed, ${failed:-0} failed, ${skipped:-0} skipped"
exit "$status"
