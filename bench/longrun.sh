#!/usr/bin/env bash
# agentloop's own cost over a long run: 200 steps, each tool result 8 KiB,
# against a fake model in the harness's process; clearing off, then on
# (--context-limit 32000), then streamed. One line each: agentloop's CPU (the tool
# processes' own taken off), its peak RSS, the bytes it sent, the largest
# request, the final conversation; then the medians of RUNS runs (5 unless
# set). BIN_BEFORE=path adds the same runs of another build, to compare.
#
#   ./bench/longrun.sh
#   BIN_BEFORE=/tmp/agentloop-old STEPS=100 ./bench/longrun.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/agentloop}
STEPS=${STEPS:-200}
RUNS=${RUNS:-5}
[ -x "$BIN" ] || go build -o "$BIN" .
mkdir -p bench/out
go build -o bench/out/longrun ./bench/longrun
for limit in 0 32000; do
  ./bench/out/longrun -bin "$BIN" -steps "$STEPS" -runs "$RUNS" -context-limit "$limit"
done
# Streamed, as on a terminal: the requests go out as composed all the same.
./bench/out/longrun -bin "$BIN" -steps "$STEPS" -runs "$RUNS" -stream
# The least memory any program takes that makes one request through the SDKs.
go build -o bench/out/floor ./bench/floor
echo "one request through the SDKs, nothing else: $(./bench/out/floor)"
if [ -n "${BIN_BEFORE:-}" ]; then
  echo "before ($BIN_BEFORE):"
  ./bench/out/longrun -bin "$BIN_BEFORE" -steps "$STEPS" -runs "$RUNS"
fi
# The same run in one process, and one step at step 10 and at step 200
# (make bench has run them already: GO_BENCH=0).
if [ "${GO_BENCH:-1}" != 0 ]; then
  go test -run '^$' -bench 'LongRun|Compose|BenchmarkStep' -count "${COUNT:-5}" ./pkg/agent
fi
