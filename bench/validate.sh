#!/usr/bin/env bash
# Throughput and peak memory of `agentloop validate` on a large generated
# log, next to `cat FILE > /dev/null` on the same file: agentloop
# transcripts in both shapes, and a Claude Code session log: one generated
# (text with a character above 0x7f every 8 bytes, the scanner's worst
# case), and one made of the real sessions in testdata/logs, repeated with
# their ids made new in each copy (claude-code-real).
#
#   ./bench/validate.sh                       # 1 GB, every shape
#   SIZE=200MB SHAPES=claude-code ./bench/validate.sh
#
# Throughput is given twice: by the wall clock, and by the CPU time the
# process used (user + system), which is what the wall clock measures on an
# idle machine and what it overstates on one shared with other work.
#
# The files are kept in bench/out/ (git-ignored) and reused when present.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${SIZE:-1GB}
SHAPES=${SHAPES:-openai anthropic claude-code claude-code-real}
BIN=${BIN:-bin/agentloop}
OUT=bench/out
mkdir -p "$OUT"
[ -x "$BIN" ] || go build -o "$BIN" .
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "validate.sh: needs GNU time at /usr/bin/time" >&2; exit 1; }

# mbps BYTES NANOSECONDS
mbps() { awk -v b="$1" -v ns="$2" 'BEGIN { if (ns <= 0) ns = 1; printf "%.0f", b / 1048576 / (ns / 1e9) }'; }

printf '%-12s %8s %10s %14s %14s %10s\n' shape size "cat MB/s" "validate MB/s" "(CPU MB/s)" "peak RSS"
for shape in $SHAPES; do
  f="$OUT/$shape-$SIZE.jsonl"
  if [ ! -s "$f" ]; then
    case $shape in
      claude-code-real) go run ./bench/gen -shape claude-code -from 'testdata/logs/claude-code_*.jsonl' -size "$SIZE" -o "$f" ;;
      *) go run ./bench/gen -shape "$shape" -size "$SIZE" -o "$f" ;;
    esac
  fi
  bytes=$(stat -c %s "$f")
  cat "$f" > /dev/null # warm the page cache so both runs read from memory
  t0=$(date +%s%N); cat "$f" > /dev/null; t1=$(date +%s%N)
  # One core, as the target is stated; GNU time for the CPU time and peak RSS.
  $TIME -f '%U %S %M' -o "$OUT/validate.rss" taskset -c 0 "$BIN" validate "$f" > "$OUT/validate.out" || true
  t2=$(date +%s%N)
  read -r user sys rss < <(tail -n 1 "$OUT/validate.rss")
  cpu_ns=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.0f", (u + s) * 1e9 }')
  printf '%-12s %7.0fM %10s %14s %14s %8.1fMB\n' "$shape" "$(awk -v b="$bytes" 'BEGIN{print b/1048576}')" \
    "$(mbps "$bytes" $((t1 - t0)))" "$(mbps "$bytes" $((t2 - t1)))" "$(mbps "$bytes" "$cpu_ns")" "$(awk -v k="$rss" 'BEGIN{print k/1024}')"
  tail -n 1 "$OUT/validate.out"
done
