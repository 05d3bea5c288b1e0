# Everyday targets. CI runs .ci/run; the long-running targets (fuzz, bench)
# live here and never in CI.
GO        ?= go
BIN       := bin/tracecheck
FUZZTIME  ?= 60s
# Minimizing each new input takes up to 60s by default, which starves the
# fuzzers whose seeds are whole traces; 5s keeps them exploring.
FUZZMINTIME ?= 5s

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
			$(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINTIME) $$pkg || exit 1; \
		done; \
	done

# Benchmarks (never in CI). `make gen` writes the generated trace;
# `make bench` runs tracecheck and the Python peer side by side on a trace
# of each id style (fingerprints must agree), then peak RSS of the trace
# commands (bench-rss) and of the session store (bench-session-rss) at
# 200k, 1M and 10M events of each id style, then the go test benchmarks
# on the generated trace (MB/s, allocs/event; checkpoint resume after 1k vs
# 1M events). The whole of it takes about an hour and 15 GB of disk at a
# time; each part runs alone too.
BENCH_EVENTS ?= 200000
BENCH_TRACE  := bench/out/trace-$(BENCH_EVENTS).jsonl
BENCH_RUNS   ?= 3

.PHONY: gen bench-side bench-go
gen: $(BENCH_TRACE)

$(BENCH_TRACE):
	@mkdir -p bench/out
	$(GO) run ./bench/gentrace -events $(BENCH_EVENTS) -o $@

bench: bench-targets bench-speed bench-side bench-rss bench-session-rss bench-go

# The speed table of issue 22: lint and import of every format (Codex,
# Claude Code, pi, the TypeScript harness, Trace; about 100 MB each) in MB
# per CPU-second, against Python's per-line json.loads and `wc -l` over the
# same file, with peak RSS; then diff --normalize against exact diff against
# GNU diff on a 200k-event pair with 3 events differing. Each command and
# its peers in turn, BENCH_SPEED_RUNS rounds, medians of the paired ratios
# (bench/speed.py). About 5 minutes; the files stay in bench/out.
# bench-speed-rss: peak RSS of lint and import on 1 GB of each format
# (generated, measured and deleted one at a time; about 5 minutes more).
BENCH_SPEED_RUNS ?= 5
.PHONY: bench-speed bench-speed-rss
bench-speed: build
	python3 bench/speed.py $(BIN) --runs $(BENCH_SPEED_RUNS)

bench-speed-rss: build
	python3 bench/speed.py $(BIN) --only rss --rss-gb 1

# The targets of issue 25, each printed with its peer measured in the same
# run and met or NOT met (bench/targets.py): lint and import of every format
# against json.loads (MB per CPU-second, paired ratio), their peak RSS at
# 1 GB, diff --normalize against exact diff and exact diff against GNU diff,
# replay --json and fingerprint against the Python peer at 1M UUID events,
# model serve against a plain net/http handler. About 10 minutes once the
# files exist in bench/out (5.4 GB of them are the 1 GB files, kept; the
# first run generates them, a few minutes more). Exit 1 when a target is
# not met.
BENCH_TARGET_RUNS ?= 5
.PHONY: bench-targets
bench-targets: build
	$(GO) build -o bin/modelload ./bench/modelload
	python3 bench/targets.py $(BIN) bin/modelload --runs $(BENCH_TARGET_RUNS)

# Side by side with the Python peer, one trace per id style (issue 13):
# BENCH_SIDE_EVENTS events each (the peer takes about a minute per 1M).
BENCH_SIDE_EVENTS ?= 1000000
BENCH_SIDE_TRACES := $(foreach s,ref padded uuid,bench/out/trace-$(BENCH_SIDE_EVENTS)-$(s).jsonl)
ids_ref    := evt-%03d
ids_padded := evt-%07d
ids_uuid   := uuid

bench/out/trace-$(BENCH_SIDE_EVENTS)-%.jsonl:
	@mkdir -p bench/out
	$(GO) run ./bench/gentrace -events $(BENCH_SIDE_EVENTS) -ids '$(ids_$*)' -o $@

bench-side: build $(BENCH_SIDE_TRACES)
	python3 bench/run.py $(BIN) $(BENCH_SIDE_TRACES) --runs $(BENCH_RUNS)

# Peak RSS of validate, replay, fingerprint and lint at each size and id
# style, tracecheck alone: each trace is generated, measured and deleted
# (10M events are about 6.5 GB).
BENCH_RSS_SIZES ?= 200000 1000000 10000000

.PHONY: bench-rss
bench-rss: build
	@mkdir -p bench/out
	@for n in $(BENCH_RSS_SIZES); do for s in 'evt-%03d' 'evt-%07d' uuid; do \
		f=bench/out/rss-$$n.jsonl; \
		$(GO) run ./bench/gentrace -events $$n -ids "$$s" -o $$f || exit 1; \
		python3 bench/run.py $(BIN) $$f --no-peer --runs 1 || { rm -f $$f; exit 1; }; \
		rm -f $$f; \
	done; done

# The session store at each size and ID style (issue 13): peak RSS of
# session append --batch 512 from nothing, check, resume with and without
# a checkpoint, checkpoint (and its size); sessions generated and deleted.
.PHONY: bench-session-rss
bench-session-rss: build
	@for n in $(BENCH_RSS_SIZES); do for s in 'evt-%03d' 'evt-%07d' uuid; do \
		bash bench/session-rss.sh $(BIN) $$n "$$s" || exit 1; \
	done; done

bench-go: gen
	TRACECHECK_BENCH_FILE=$(CURDIR)/$(BENCH_TRACE) $(GO) test -run='^$$' -bench='ReplayStream|Validate|Scan' -benchtime=5x ./reducer
	$(GO) test -run='^$$' -bench='CheckpointResume' -benchtime=50x ./reducer
	$(GO) test -run='^$$' -bench='ResumeAfter|ResumePaired' -benchtime=100x ./reducer
	$(GO) test -run='^$$' -bench=. -benchmem $$($(GO) list ./... | grep -v '/reducer$$')

.PHONY: bench-view
# The page of the generated trace opened in headless Chromium (issue 16):
# the page's own marks, medians of 7 opens; needs Debian's chromium.
bench-view: gen
	TRACECHECK_BENCH_FILE=$(CURDIR)/$(BENCH_TRACE) $(GO) test -run='^$$' -bench=Open200k -benchtime=7x ./view/browsertest

.PHONY: bench-agents
# Time per real-agent run (tracecheck agent run): the whole run against the
# agent's own wall time, medians of 5, for pi, Claude Code and Codex on the
# two scenarios of agents/scenarios; needs agents/npm/node_modules
# (go test ./cmd/tracecheck -run TestRealAgents installs it). About a minute.
bench-agents:
	bench/agent-run.sh 5

.PHONY: bench-shards
# Sharding (docs/sharding.md): lint of a 10,000-file corpus with --jobs 1
# and --jobs 2, and N=4 simulated shards against one job (a verify suite of
# 64 cases of 0.25 s each, and the lint corpus), each shard's wall time and
# the merge's; medians of 3. About five minutes and 0.7 GB of bench/out.
bench-shards: build
	bench/shards.sh $(BIN)

clean:
	rm -rf bin bench/out
