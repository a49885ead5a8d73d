#!/usr/bin/env bash
# The committed production build (app/web/static) must be what web/ builds now: install the locked
# dependencies, build into a temporary folder and compare. Needs Node and the npm registry only.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
command -v npm >/dev/null 2>&1 || { echo "web build check: npm (Node.js 20+) is required." >&2; exit 1; }
tmp="$(mktemp -d "${TMPDIR:-/tmp}/tdg-web-build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

cd web
npm ci --no-audit --no-fund --loglevel=error >/dev/null
# the steps of `npm run build`, with the output redirected away from the committed build
npx --no-install graphql-codegen --config codegen.ts --silent
npx --no-install tsc -b
npx --no-install vite build --outDir "$tmp" --emptyOutDir --logLevel error

if ! diff -r "$tmp" "$root/app/web/static" >"$tmp.diff" 2>&1; then
  echo "web build check: the committed app/web/static is stale (it differs from a fresh build of web/):" >&2
  head -n 40 "$tmp.diff" >&2
  rm -f "$tmp.diff"
  echo "Rebuild it with: cd web && npm ci && npm run build, then commit app/web/static." >&2
  exit 1
fi
rm -f "$tmp.diff"
echo "web build check: app/web/static matches a fresh build."
