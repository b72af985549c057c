#!/usr/bin/env bash
# What tracing costs: --version and a one-call run of agentloop built from
# BEFORE (a git ref; default the last commit without pkg/tracing) and of
# this tree, interleaved, with no OTEL variable set; and this tree's run
# traced, to a receiver and to a collector that is down. See
# bench/tracebench.
#
#   ./bench/tracing.sh
#   BEFORE=v0.9.0 RUNS=200 ./bench/tracing.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
before=${BEFORE:-$(git log --diff-filter=A --format=%H -- pkg/tracing/names.go | tail -1)^}
mkdir "$out/src"
git archive "$before" | tar -x -C "$out/src"
# Both built alike (go build, not the release build's flags), from caches.
(cd "$out/src" && go build -o "$out/before" .)
go build -o "$out/after" .
go run ./bench/tracebench -old "$out/before" -new "$out/after" -runs "${RUNS:-150}"
