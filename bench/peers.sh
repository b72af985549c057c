#!/usr/bin/env bash
# Prints the peers bench/startup_compare.sh measures agentloop against, as
# its PEERS variable wants them (commands separated by semicolons):
# OpenAI's Codex CLI, a native binary published on npm. It is installed
# once into a cache outside the repository; without npm or a network the
# peer is said to be missing (on stderr) and nothing is printed.
#
#   ./bench/peers.sh                        # the PEERS line
#   CODEX_VERSION=0.171.0 ./bench/peers.sh  # another release
set -uo pipefail
CACHE=${AGENTLOOP_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentloop-bench}
CODEX_VERSION=${CODEX_VERSION:-0.171.0}
dir=$CACHE/codex-$CODEX_VERSION

# The package's launcher is a Node.js script; the binary it starts is in
# a platform package under vendor/<target>/bin/codex.
find_codex() {
  find "$dir/node_modules" -path '*/vendor/*/bin/codex' -type f -perm -u+x 2>/dev/null | head -n 1
}

codex=$(find_codex)
if [ -z "$codex" ]; then
  if ! command -v npm > /dev/null; then
    echo "peers: codex missing (no npm to install @openai/codex@$CODEX_VERSION)" >&2
    exit 0
  fi
  mkdir -p "$dir"
  if ! timeout 300 npm install --prefix "$dir" --no-audit --no-fund --no-save \
    "@openai/codex@$CODEX_VERSION" > "$dir/npm.log" 2>&1; then
    echo "peers: codex missing (npm install @openai/codex@$CODEX_VERSION failed, see $dir/npm.log)" >&2
    exit 0
  fi
  codex=$(find_codex)
  if [ -z "$codex" ]; then
    echo "peers: codex missing (no native binary for this platform in @openai/codex@$CODEX_VERSION)" >&2
    exit 0
  fi
fi
echo "$codex --version;$codex --help"
