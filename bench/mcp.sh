#!/usr/bin/env bash
# MCP figures beside the Go benchmarks of pkg/mcp (BenchmarkCall,
# BenchmarkStart, BenchmarkParallelCalls): the start time of a published
# server run by Node.js, the reference server-everything, as agentloop
# mcp list reports it (process start, initialize, tools/list), median of
# RUNS starts. Skipped, saying so, when the server is not installed (the
# tests install it: go test -run TestPublishedMCPServer ./e2e).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/agentloop}
RUNS=${RUNS:-10}
[ -x "$BIN" ] || go build -o "$BIN" .
cache=${AGENTLOOP_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentloop-tests/npm}
server="$cache/node_modules/.bin/mcp-server-everything"
if [ ! -x "$server" ]; then
  echo "mcp: $server is not installed; run go test -run TestPublishedMCPServer ./e2e first"
  exit 0
fi
cfg=$(mktemp)
trap 'rm -f "$cfg"' EXIT
printf '{"mcpServers": {"everything": {"command": "%s"}}}\n' "$server" > "$cfg"
ms=()
for _ in $(seq "$RUNS"); do
  ms+=($("$BIN" mcp list --json --mcp-config "$cfg" | sed -n 's/.*"start_ms": \([0-9]*\).*/\1/p'))
done
median=$(printf '%s\n' "${ms[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
echo "mcp: server-everything (Node.js, stdio) starts and lists its tools in a median of ${median} ms over $RUNS starts"
