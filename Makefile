# wirecheck — the two commands that matter: `make demo` and `make test`.
GO          ?= go
BIN         := bin/wirecheck
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS     := -X main.version=$(VERSION)
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
PROTOCOLS   := sonde-serve tool-host agent-bridge mcp sophon
# The token the profiles' reference servers accept and their runs send.
export WIRECHECK_TOKEN ?= wirecheck-demo

.PHONY: all build install readme frozen demo test interop lint bench clean

all: build

# CGO_ENABLED=0: no C is needed (the resolver and os/user have pure-Go
# forms), and a static binary maps no libc: some 1.4 MiB less resident
# in every run (docs/official-suite.md, make bench), and it runs on any
# Linux of its architecture.
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/wirecheck

# Install wirecheck from this clone (the module is not published, so
# `go install …@latest` cannot fetch it): into $(go env GOBIN), else the
# first GOPATH's bin, and say where and whether that folder is on PATH.
install:
	CGO_ENABLED=0 $(GO) install -ldflags "$(LDFLAGS)" ./cmd/wirecheck
	@dir="$$($(GO) env GOBIN)"; [ -n "$$dir" ] || dir="$$($(GO) env GOPATH | cut -d: -f1)/bin"; \
	echo "installed $$dir/wirecheck"; \
	case ":$$PATH:" in *":$$dir:"*) ;; *) echo "$$dir is not on your PATH: add it, e.g. export PATH=\"$$dir:\$$PATH\"";; esac

# Certify every built-in reference server, then show what a failure looks
# like by planting one fault. Reports land in reports/.
demo: build
	@mkdir -p reports
	@for p in $(PROTOCOLS); do \
	  echo "== wirecheck run --protocol $$p -- wirecheck serve $$p"; \
	  ./$(BIN) run --protocol $$p \
	    --report json=reports/$$p.json --report junit=reports/$$p.junit.xml \
	    --report html=reports/$$p.html --report markdown=reports/$$p.md \
	    -- ./$(BIN) serve $$p || exit 1; \
	done
	@echo "== wirecheck run --protocol mcp --revision all -- wirecheck serve mcp (every revision side by side, a column each)"
	@./$(BIN) run --protocol mcp --revision all \
	  --report json=reports/mcp-all.json --report html=reports/mcp-all.html --report markdown=reports/mcp-all.md \
	  -- ./$(BIN) serve mcp || exit 1
	@for t in http sse; do \
	  echo "== wirecheck run --protocol mcp --transport $$t -- wirecheck serve mcp --$$t 127.0.0.1:{port}"; \
	  ./$(BIN) run --protocol mcp --transport $$t \
	    --report json=reports/mcp-$$t.json --report junit=reports/mcp-$$t.junit.xml \
	    --report html=reports/mcp-$$t.html --report markdown=reports/mcp-$$t.md \
	    -- ./$(BIN) serve mcp --$$t '127.0.0.1:{port}' || exit 1; \
	done
	@for t in http sse; do \
	  echo "== wirecheck run --protocol sophon --transport $$t --header 'Authorization: Bearer \$${WIRECHECK_TOKEN}' -- wirecheck serve sophon --$$t 127.0.0.1:{port}"; \
	  ./$(BIN) run --protocol sophon --transport $$t --header 'Authorization: Bearer $${WIRECHECK_TOKEN}' \
	    --report json=reports/sophon-$$t.json --report junit=reports/sophon-$$t.junit.xml \
	    --report html=reports/sophon-$$t.html --report markdown=reports/sophon-$$t.md \
	    -- ./$(BIN) serve sophon --$$t '127.0.0.1:{port}' || exit 1; \
	done
	@# Profiles of MCP over HTTP ask a Bearer token on every request: the
	@# reference servers accept $$WIRECHECK_TOKEN (default wirecheck-demo).
	@echo "== wirecheck run --protocol sonde-hub --transport http --header 'Authorization: Bearer \$${WIRECHECK_TOKEN}' -- wirecheck serve sonde-hub --http 127.0.0.1:{port}"
	@WIRECHECK_TOKEN=$${WIRECHECK_TOKEN:-wirecheck-demo} ./$(BIN) run --protocol sonde-hub --transport http \
	  --header 'Authorization: Bearer $${WIRECHECK_TOKEN}' \
	  --report json=reports/sonde-hub.json --report junit=reports/sonde-hub.junit.xml \
	  --report html=reports/sonde-hub.html --report markdown=reports/sonde-hub.md \
	  -- ./$(BIN) serve sonde-hub --http '127.0.0.1:{port}'
	@echo "== wirecheck run --protocol mcp-authorization -- wirecheck serve mcp-authorization --http 127.0.0.1:{port} (an OAuth authorization server)"
	@./$(BIN) run --protocol mcp-authorization \
	  --report json=reports/mcp-authorization.json --report junit=reports/mcp-authorization.junit.xml \
	  --report html=reports/mcp-authorization.html --report markdown=reports/mcp-authorization.md \
	  -- ./$(BIN) serve mcp-authorization --http '127.0.0.1:{port}'
	@echo "== wirecheck run --protocol mcp --role client -- wirecheck serve mcp --role client -- {server} (the reference MCP client; wirecheck plays its server)"
	@./$(BIN) run --protocol mcp --role client \
	  --report json=reports/mcp-client.json --report junit=reports/mcp-client.junit.xml \
	  --report html=reports/mcp-client.html --report markdown=reports/mcp-client.md \
	  -- ./$(BIN) serve mcp --role client -- '{server}'
	@echo
	@echo "== the same suite against a server that echoes the wrong id (--fault wrong-id); exit code 1 is the point"
	@./$(BIN) run --protocol sonde-serve --scenario tools-list --timeout 1s --report html=reports/sonde-serve-fault.html \
	  -- ./$(BIN) serve sonde-serve --fault wrong-id; test $$? -eq 1
	@echo
	@echo "reports written:"; ls -1 reports/*.json reports/*.xml reports/*.html reports/*.md

# -p 4: packages wait on the servers they launch more than they compute
# (a 2-core CI machine averaged 1.2 busy cores at go test's default of
# one package per core), so four at once keep both cores busy.
test: lint
	$(GO) test -race -count=1 -p 4 ./...

# The interop corpus: more real MCP servers (test/interop: package.json,
# go-servers.txt), each run `--revision all` over every transport it has,
# against the findings recorded in internal/interop/testdata. Outside make
# test's time budget; .ci/run runs it beside make test.
interop:
	bash test/interop/install.sh
	WIRECHECK_INTEROP_CORPUS=1 $(GO) test -race -count=1 -timeout 15m ./internal/interop -ginkgo.label-filter=corpus

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed on:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

# The fuzzer's figures run a fixed number of sequences (the same seed, so
# the same sequences every time): messages/s against the reference server
# and server-everything, each beside a bare client sending the same lines
# to one process, and the ratios.
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 2s $$($(GO) list ./... | grep -v /internal/fuzz$$)
	# 2000 sequences of the reference server, some 3 s: at 500 the
	# campaign's first start and one hiccup of the machine weigh in the ratio.
	$(GO) test -run '^$$' -bench 'Fuzz/reference' -benchtime 2000x ./internal/fuzz
	$(GO) test -run '^$$' -bench 'Fuzz/server-everything|FreshEvery|Malformations' -benchtime 500x ./internal/fuzz
	$(GO) run ./internal/bench/faultbench -bin $(BIN)
	$(GO) run ./internal/interop/officialbench -bin $(BIN)

clean:
	rm -rf bin

# The README's tables and excerpts, from the binary's own output
# (internal/docgen; a test fails when they drift).
readme: build
	$(GO) run ./internal/docgen/mkreadme -bin $(BIN) README.md

# The frozen form of each spec (specs/<id>.frozen, internal/spec/frozen.go),
# which a run reads in place of the YAML: after editing a spec or the
# types it decodes to (a test fails until they are written again).
frozen:
	WIRECHECK_FREEZE=1 $(GO) test -count=1 ./internal/spec -ginkgo.focus='a frozen spec is current'
