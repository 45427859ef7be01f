# countsim — the two commands of the README, and the checks around them.
GO      ?= go
BIN     := bin/countsim
OUT     ?= reports
PKGS    := ./...

.PHONY: run test check needs fmt-check vet bench bench-all build clean figures docs docs-check

## build: the countsim binary in bin/
build:
	$(GO) build -o $(BIN) ./cmd/countsim

## run: every built-in scenario at default scale; a report folder under $(OUT)/
run: build
	./$(BIN) run -out $(OUT)

## test: formatting, vet, the suite with the race detector (-short: the
## acceptance runs of the built-in scenarios are too slow under -race), then
## the whole suite, acceptance runs included, without it, then countsim
## check: every bound of the built-in scenarios (the worked examples'
## numbers) still holds and every trap they show on purpose still shows,
## then every page of docs/ rendered from a built-in template, the
## README's rendered figures (docs/readme.md) among them, is not stale
## (make docs-check: render -check of each, about a minute together)
test: needs fmt-check vet
	$(GO) test -race -short -shuffle=on -count=1 -timeout 25m $(PKGS)
	$(GO) test -count=1 -timeout 25m $(PKGS)
	$(GO) run ./cmd/countsim check
	$(MAKE) -s docs-check

## docs: render the built-in templates into docs/ (their runs' report
## folders under $(OUT)/), over the pages rendered before, and
## docs/readme.md's text into README.md between its render lines
docs: build
	for t in $$(./$(BIN) render -list); do ./$(BIN) render -q -reports $(OUT) -out docs/$$t.md $$t || exit 1; done
	$(GO) test ./cmd/countsim -run TestREADMEFiguresAreRendered -count=1 -update

## docs-check: every page of docs/ is not stale
docs-check: build
	for f in docs/*.md; do ./$(BIN) render -q -check $$f || exit 1; done

## check: test, plus the build
check: test build

## needs: what make test needs beyond Go, checked before anything runs:
## redis-server and redis-cli (the Redis tests start their own servers on
## loopback) and Chromium (the browser test of report.html)
needs:
	@missing=; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	command -v redis-cli >/dev/null || missing="$$missing redis-tools"; \
	{ command -v chromium || command -v chromium-browser || command -v google-chrome || command -v google-chrome-stable; } >/dev/null || missing="$$missing chromium"; \
	if [ -n "$$missing" ]; then \
		echo "make test needs$$missing: install with"; \
		echo "  apt-get update && apt-get install -y --no-install-recommends$$missing   (as root, or with sudo)"; \
		echo "(Debian's packages; .ci/run installs them itself)"; exit 1; fi

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

## bench: each design beside its floor (the simplest loop doing the same
## work) and a peer library where there is one, measured in the same run,
## then every line's ratio to its floor (tools/benchratio.awk, medians of
## BENCHCOUNT runs); the search scenario end to end in ns/event of wall;
## every scenario of the default run end to end, one run each
## (BenchmarkDefaultRun, -benchtime 1x), in CPU seconds (cpu-s/op) and
## wall (ns/op)
BENCH      ?= Truth|ClusterPFAdd|ExactDistinctObserve|CountMinAdd|HLLInsert|ExactObserve|SpaceSavingObserve|TopKObserve|SplitTopK|ZipfRank|StreamChunk|RunSearch|Zset|RatingObserve|TrendingObserve|DecayObserve|StripedPopulation
BENCHCOUNT ?= 3
bench:
	@out=$$(mktemp); \
	if ! $(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(BENCHCOUNT) ./sim/... ./strategies/... ./workload > $$out || \
		! $(GO) test -run '^$$' -bench '^BenchmarkDefaultRun$$' -benchtime 1x -count $(BENCHCOUNT) ./sim >> $$out; then \
		cat $$out; rm -f $$out; exit 1; fi; \
	cat $$out; echo; awk -f tools/benchratio.awk $$out; rm -f $$out

## bench-all: every benchmark, ns/event and allocations
bench-all:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## figures: measure the README's figures of the two commands (make run RUNS
## times, make test once unless TEST=0, countsim check's tally) and the
## machine, and write them into README.md between its figures lines
figures:
	RUNS=$${RUNS:-3} TEST=$${TEST:-1} GO=$(GO) tools/figures

clean:
	rm -rf bin
