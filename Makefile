# agentloop — build, test, lint, bench, fuzz.
GO      ?= go
BIN     ?= bin/agentloop
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/agentloop/agentloop/internal/version.stamped=$(VERSION)
# The packages that run goroutines of their own get a second pass under -race.
RACE_PKGS := ./pkg/agent/... ./pkg/provider/... ./internal/httpretry/... ./pkg/tools/... ./pkg/mcp/... ./pkg/replay/... ./pkg/batch/...
FUZZTIME ?= 30s
# go test's own default, 10 minutes a package, is too short for the system
# tests' package on a cold 2-core machine; a hang still ends well before CI's.
TESTTIMEOUT ?= 20m

.PHONY: build test race lint bench fuzz man clean

# CGO_ENABLED=0: one static binary, with Go's own resolver and user lookup,
# that runs on any Linux of the same architecture.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) .

test:
	$(GO) test -timeout $(TESTTIMEOUT) ./...
	$(MAKE) race

race:
	$(GO) test -race -count=1 -timeout $(TESTTIMEOUT) $(RACE_PKGS)

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
