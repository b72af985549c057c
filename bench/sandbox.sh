#!/usr/bin/env bash
# The cost of the tool sandbox per call: `agentloop tools call` of a tool
# that does nothing, --sandbox off against read-only, the two interleaved
# run by run so that the machine's load falls on both alike. The
# difference of the medians is what the launcher costs a call (agentloop
# started again, restricting itself with Landlock, executing the tool)
# with the private TMPDIR made and removed.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-40}
BIN=${BIN:-bin/agentloop}
[ -x "$BIN" ] || CGO_ENABLED=0 go build -o "$BIN" .
BIN=$(realpath "$BIN")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/tools.d"
printf 'name: noop\ndescription: Does nothing.\nparameters: {}\ncommand: ["true"]\n' > "$dir/tools.d/noop.yaml"
cd "$dir"
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
: > off.txt; : > ro.txt
for _ in $(seq "$N"); do
	ms "$BIN" tools call --tools-dir tools.d --sandbox off noop >> off.txt
	ms "$BIN" tools call --tools-dir tools.d --sandbox read-only noop >> ro.txt
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
off=$(median off.txt); ro=$(median ro.txt)
echo "sandbox: tools call, median of $N: off ${off} µs, read-only ${ro} µs, launcher $(( ro - off )) µs per call ($(uptime | sed 's/.*load average: //') load)"
