#!/usr/bin/env bash
# Start-up time and peak memory of `agentloop --version`: the median wall
# time of RUNS runs, and the largest peak RSS among them.
#
#   ./bench/startup.sh          # 100 runs of bin/agentloop
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/agentloop}
RUNS=${RUNS:-100}
[ -x "$BIN" ] || make -s build BIN="$BIN" # stamped: --version is answered early
"$BIN" --version > /dev/null # page the binary in once
times=()
for _ in $(seq "$RUNS"); do
  t0=${EPOCHREALTIME/./} # microseconds, without forking a date(1)
  "$BIN" --version > /dev/null
  t1=${EPOCHREALTIME/./}
  times+=($(( t1 - t0 )))
done
# The peak RSS in separate runs, so GNU time's own start-up is not timed.
rss=0
for _ in $(seq 10); do
  r=$(/usr/bin/time -f '%M' "$BIN" --version 2>&1 > /dev/null | tail -n 1)
  [ "$r" -gt "$rss" ] && rss=$r
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
printf 'agentloop --version: median %.1f ms over %d runs, peak RSS %.1f MB\n' \
  "$(awk -v us="$median" 'BEGIN{print us/1000}')" "$RUNS" "$(awk -v k="$rss" 'BEGIN{print k/1024}')"
