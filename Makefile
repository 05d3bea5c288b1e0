# Everyday targets. CI runs .ci/run; the long-running targets (fuzz, bench)
# live here and never in CI.
GO        ?= go
BIN       := bin/tracecheck
FUZZTIME  ?= 60s

.PHONY: all build verify test lint fuzz bench clean

all: lint test

build:
	$(GO) build -o $(BIN) ./cmd/tracecheck

verify: build
	./$(BIN) verify

test:
	$(GO) test ./...

lint:
	@test -z "$$(gofmt -l .)" || (gofmt -l .; echo "run gofmt -w"; exit 1)
	$(GO) vet ./...

# Each fuzz target runs for FUZZTIME (go test allows one target per run).
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$f"; \
			$(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

clean:
	rm -rf bin bench/out
