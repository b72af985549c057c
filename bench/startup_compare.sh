#!/usr/bin/env bash
# Start-up of agentloop --version and --help beside other programs, run
# interleaved (each round runs every command once) so that the machine's
# load falls on all alike: the median wall time of RUNS rounds each.
#
#   PEERS="/path/to/codex --version" ./bench/startup_compare.sh
#
# A bare Go binary (hello world) is always measured: the floor of a Go
# program's start on this machine. PEERS holds commands separated by
# semicolons.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/agentloop}
RUNS=${RUNS:-200}
[ -x "$BIN" ] || CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN" .
bare=$(mktemp -d)
trap 'rm -rf "$bare"' EXIT
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' > "$bare/main.go"
(cd "$bare" && go mod init bare >/dev/null 2>&1 && go build -o hello .)
cmds=("$BIN --version" "$BIN --help" "$bare/hello")
IFS=';' read -r -a peers <<< "${PEERS:-}"
for p in "${peers[@]}"; do [ -n "$p" ] && cmds+=("$p"); done
for c in "${cmds[@]}"; do $c > /dev/null 2>&1 || true; done # page each in once
declare -A times
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
  printf 'start-up: %-60s median %.1f ms over %d runs\n' "${cmds[$i]/$bare\//}" "$(awk -v us="$median" 'BEGIN{print us/1000}')" "$RUNS"
done
