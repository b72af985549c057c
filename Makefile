# agentloop — build, test, lint, bench, fuzz.
GO      ?= go
BIN     ?= bin/agentloop
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/agentloop/agentloop/internal/version.stamped=$(VERSION)
# The packages that start goroutines of their own (grep -rln 'go func' --include=*.go)
# or serve requests concurrently (the fake APIs) get a second pass under -race.
# Not internal/cdp: its one goroutine waits for the browser to exit, and its
# tests are cmd's in Chromium, which the race pass (-short) leaves out.
RACE_PKGS := ./cmd ./internal/fakeapi ./internal/httpretry/... ./pkg/agent/... ./pkg/batch/... \
	./pkg/history/... ./pkg/mcp/... ./pkg/provider/... ./pkg/replay/... ./pkg/tools/... ./pkg/approval/... \
	./pkg/batchapi ./pkg/engine ./pkg/tracing ./pkg/transcript/report ./pkg/transcript/internal/check ./internal/runview
FUZZTIME ?= 30s
# go test's own default, 10 minutes a package, is too short for a package
# compiled on a cold, loaded 2-core machine; a hang still ends well before CI's.
TESTTIMEOUT ?= 20m

.PHONY: build test test-short race lint bench fuzz man clean

# CGO_ENABLED=0: one static binary, with Go's own resolver and user lookup,
# that runs on any Linux of the same architecture.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) .

# Everything: the system tests in e2e/ included, with the browser and the
# published MCP servers where they can run (each skips, saying why, where
# it cannot), then the race detector's pass.
# CGO_ENABLED=0, as make build: the system tests run this test binary as
# agentloop, so it is built as agentloop ships. With cgo, the sandbox's
# Landlock library (psx) wraps every thread the C way and the program's
# resident memory grows by about 18 MB, past the bounds the tests hold it to.
test:
	CGO_ENABLED=0 $(GO) test -timeout $(TESTTIMEOUT) ./...
	$(MAKE) race

# A quick local run: no headless Chromium, no npm, the largest inputs and
# the longest crash loops cut down, no race pass.
test-short:
	CGO_ENABLED=0 $(GO) test -short -timeout $(TESTTIMEOUT) ./...

# -short: the race detector watches the same code paths at the smaller
# sizes; the full sizes (a 100 MB line, a 64 MiB stream) ran in the first
# pass, and under the detector they cost minutes and find nothing more.
race:
	$(GO) test -race -short -count=1 -timeout $(TESTTIMEOUT) $(RACE_PKGS)

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

bench: build
	./bench/run.sh

fuzz:
	./bench/fuzz.sh $(FUZZTIME)

# Man pages, one per command, from the commands' help. The date in them is
# the last commit's, so that the same source gives the same pages.
man:
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || date +%s) $(GO) run ./internal/mangen man

clean:
	rm -rf bin man
