#!/usr/bin/env bash
# What a long-lived agentloop process holds and leaves: one batch per
# scenario (script tools that answer, fail, time out, leave children; MCP
# servers over stdio and HTTP that time out and crash; API errors, cut
# connections and hangs; long answers; Ctrl-C mid-batch) and one run of
# many steps, each watched through /proc: descriptors, threads, RSS,
# children and zombies at item 100 and at the last, and after the exit any
# process of the run still alive and any file left in its TMPDIR (exit 1
# if there is one). See bench/leaks.
#
#   ./bench/leaks.sh                              # 1,000 items at -j 16
#   ITEMS=5000 JOBS=1,16 ./bench/leaks.sh         # the figures of docs/performance.md
#   SCENARIOS=answers,steps STEPS=1000 ./bench/leaks.sh
#   PROVIDER=anthropic SCENARIOS=errors,tools ./bench/leaks.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/agentloop}
[ -x "$BIN" ] || go build -o "$BIN" .
mkdir -p bench/out
go build -o bench/out/leaks-bench ./bench/leaks
./bench/out/leaks-bench -bin "$BIN" -items "${ITEMS:-1000}" -j "${JOBS:-16}" -steps "${STEPS:-500}" \
  -scenario "${SCENARIOS:-tools,mcp,errors,answers,tools+int,steps}" -provider "${PROVIDER:-openai}"
