#!/usr/bin/env bash
# `agentloop log` over a transcript folder of N transcripts of SIZE each
# (10,000 of 1 MB by default: about 10 GB, generated once into bench/out/
# and reused). Prints the median wall time of RUNS runs of each listing,
# with the cache warm, and the CPU time and peak RSS of one.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10000}
SIZE=${SIZE:-1MB}
RUNS=${RUNS:-7}
BIN=${BIN:-bin/agentloop}
DIR=bench/out/log-$N-$SIZE
if [ ! -f "$DIR/.complete" ]; then
	rm -rf "$DIR"
	echo "generating $N transcripts of $SIZE in $DIR ..." >&2
	go run ./bench/gen -runs "$N" -size "$SIZE" -dir "$DIR"
	touch "$DIR/.complete"
fi
ms() { echo $(( ($2 - $1) / 1000000 )); }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
run() {
	"$BIN" log --dir "$DIR" "$@" > /dev/null 2>&1 # warm the cache
	for _ in $(seq "$RUNS"); do
		s=$(date +%s%N)
		"$BIN" log --dir "$DIR" "$@" > /dev/null 2>&1
		e=$(date +%s%N)
		ms "$s" "$e"
	done | median
}
cpu() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -o /tmp/agentloop-log-time.$$ -f '%U %S %M' "$BIN" log --dir "$DIR" "$@" > /dev/null 2>&1
		awk '{ printf "cpu %.0f ms, peak RSS %.1f MB", ($1 + $2) * 1000, $3 / 1024 }' /tmp/agentloop-log-time.$$
		rm -f /tmp/agentloop-log-time.$$
	fi
}
echo "agentloop log over $N transcripts of $SIZE ($(du -sh "$DIR" | cut -f1)), median of $RUNS, warm cache, load $(cut -d' ' -f1 /proc/loadavg):"
for args in "" "-n 0" "--json -n 0" "--search no-such-text -n 0" "show last" "path 7ede7b"; do
	# shellcheck disable=SC2086
	printf '  log %-28s %6s ms   (%s)\n' "$args" "$(run $args)" "$(cpu $args)"
done
