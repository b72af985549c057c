#!/usr/bin/env bash
# Start-up of agentloop --version and --help beside other programs, run
# interleaved (each round runs every command once) so that the machine's
# load falls on all alike: the median wall time of RUNS rounds each.
#
#   ./bench/startup_compare.sh                  # peers from bench/peers.sh
#   PEERS="/path/to/codex --version" ./bench/startup_compare.sh
#
# A bare Go binary (hello world) is always measured: the floor of a Go
# program's start on this machine. PEERS holds commands separated by
# semicolons; unset, it is what bench/peers.sh prints (OpenAI's Codex CLI,
# installed once from npm into a cache; missing, it is said so and skipped).
# Each peer's median is also given as a ratio to agentloop's: above 1, the
# peer is slower.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/agentloop}
RUNS=${RUNS:-200}
[ -x "$BIN" ] || make -s build BIN="$BIN" # stamped: --version is answered early
bare=$(mktemp -d)
trap 'rm -rf "$bare"' EXIT
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' > "$bare/main.go"
(cd "$bare" && go mod init bare >/dev/null 2>&1 && go build -o hello .)
cmds=("$BIN --version" "$BIN --help" "$bare/hello")
[ -n "${PEERS+set}" ] || PEERS=$(./bench/peers.sh)
IFS=';' read -r -a peers <<< "$PEERS"
for p in "${peers[@]}"; do [ -n "$p" ] && cmds+=("$p"); done
# A command as printed: the program's name, not the cache it lives in.
label() {
  local prog=${1%% *} rest=""
  [ "$prog" = "$1" ] || rest=" ${1#* }"
  [ "$prog" = "$BIN" ] || prog=$(basename "$prog")
  echo "$prog$rest"
}
for c in "${cmds[@]}"; do $c > /dev/null 2>&1 || true; done # page each in once
declare -A times medians
for _ in $(seq "$RUNS"); do
  for i in "${!cmds[@]}"; do
    t0=${EPOCHREALTIME/./}
    ${cmds[$i]} > /dev/null 2>&1 || true
    t1=${EPOCHREALTIME/./}
    times[$i]+="$(( t1 - t0 )) "
  done
done
for i in "${!cmds[@]}"; do
  median=$(printf '%s\n' ${times[$i]} | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
  medians[$i]=$median
  printf 'start-up: %-60s median %.1f ms over %d runs\n' "$(label "${cmds[$i]}")" "$(awk -v us="$median" 'BEGIN{print us/1000}')" "$RUNS"
done
# A peer's flag is matched to agentloop's: "codex --help" to "agentloop --help".
for ((i = 3; i < ${#cmds[@]}; i++)); do
  for j in 0 1; do
    [ "${cmds[$i]##* }" = "${cmds[$j]##* }" ] || continue
    printf 'start-up: %-60s %.2fx the time of agentloop %s\n' "$(label "${cmds[$i]}")" \
      "$(awk -v p="${medians[$i]}" -v a="${medians[$j]}" 'BEGIN{print p/a}')" "${cmds[$j]##* }"
  done
done
