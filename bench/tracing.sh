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
BIN=${BIN:-bin/agentloop}
make -s build BIN="$BIN"
before=${BEFORE:-$(git log --diff-filter=A --format=%H -- pkg/tracing/names.go | tail -1)^}
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
git archive "$before" | tar -x -C "$src"
make -s -C "$src" build BIN="$src/agentloop" >/dev/null
go run ./bench/tracebench -old "$src/agentloop" -new "$BIN" -runs "${RUNS:-100}"
