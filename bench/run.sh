#!/usr/bin/env bash
# Runs every benchmark of the project. Figures are medians of -count runs.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-5}
go test -run '^$' -bench . -benchmem -count "$COUNT" ./... | tee bench/out.txt
./bench/startup.sh | tee -a bench/out.txt
./bench/startup_compare.sh | tee -a bench/out.txt
./bench/validate.sh | tee -a bench/out.txt
./bench/batch.sh | tee -a bench/out.txt
./bench/mcp.sh | tee -a bench/out.txt
./bench/sandbox.sh | tee -a bench/out.txt
./bench/log.sh | tee -a bench/out.txt
./bench/tracing.sh | tee -a bench/out.txt
./bench/leaks.sh | tee -a bench/out.txt
GO_BENCH=0 ./bench/longrun.sh | tee -a bench/out.txt
