#!/usr/bin/env bash
# agentloop batch against a local fake API with a fixed latency per
# request, next to the same set run as xargs -P of agentloop run, and under
# a 429 storm. See bench/batchbench.
#
#   ./bench/batch.sh                      # 1,000 items × 3 steps, 10ms a request
#   ITEMS=200 LATENCY=5ms ./bench/batch.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/agentloop}
[ -x "$BIN" ] || go build -o "$BIN" .
command -v xargs > /dev/null || { echo "batch.sh: needs xargs" >&2; exit 1; }
go run ./bench/batchbench -bin "$BIN" -items "${ITEMS:-1000}" -latency "${LATENCY:-10ms}" -j "${JOBS:-1,8,32}" -rate "${RATE:-20}"
