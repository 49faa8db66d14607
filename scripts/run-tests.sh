#!/usr/bin/env bash
# Typecheck, lint the module boundaries, then run every *.test.ts with Node's test runner.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
echo "== typecheck (tsc --noEmit)"
node_modules/.bin/tsc --noEmit -p tsconfig.json
echo "== lint (module boundaries)"
node --import "file://$root/node_modules/tsx/dist/loader.mjs" scripts/lint-boundaries.ts
if [ "$#" -gt 0 ]; then files=("$@"); else
  mapfile -t files < <(find server router common alerts grafana bench test scripts -name '*.test.ts' -not -path '*/node_modules/*' 2>/dev/null | sort)
fi
echo "== tests (${#files[@]} files)"
exec node --import "file://$root/node_modules/tsx/dist/loader.mjs" --test --test-concurrency=2 --test-reporter=spec "${files[@]}"
