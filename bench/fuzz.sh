#!/usr/bin/env bash
# Runs each fuzz target for a bounded time: ./bench/fuzz.sh 2m
set -euo pipefail
cd "$(dirname "$0")/.."
T=${1:-30s}
for pkg in $(go list ./...); do
  for f in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "== $pkg $f ($T)"
    go test -run '^$' -fuzz "^$f\$" -fuzztime "$T" "$pkg"
  done
done
