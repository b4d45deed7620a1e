# loopwork — build, run and test.
#
#   make run        build and start the server (starts a private PostgreSQL under .data/ when DATABASE_URL is unset)
#   make speech     install the offline speech recogniser's Debian packages (POST /api/agent/transcription)
#   make admin ARGS='mail-outbox --show-body'   loopwork admin … against what make run uses
#   make test       the whole test suite against a real PostgreSQL (throwaway cluster unless TEST_DATABASE_URL/DATABASE_URL is set)
#   make docs       regenerate the generated parts of docs/ (configuration, task types, layout)
#   make schema     rewrite db/schema.sql, the schema the migrations make, from a throwaway database
#   make generate   regenerate gen/ from openapi/, and openapi/api/tasks.yaml from the task registry first
#                   (reproducible; CI fails when it changes anything; needs node and npm)
#   make fuzz       run every fuzz target for FUZZTIME each
#   make deploy-check   check the Dockerfile and compose.yaml without a container runtime (internal/deploy)
#   make contract-proxy   every operation of both documents through Stoplight Prism in front of a real server
SHELL := /bin/bash
.DEFAULT_GOAL := build

GO        ?= go
BIN       := bin/loopwork
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/loopwork/loopwork/internal/buildinfo.Version=$(VERSION)
OAPI      := $(GO) run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen
DATA      := .data
SPECTRAL  := @stoplight/spectral-cli@6.16.3
SWAGGER_UI_VERSION := 5.35.0
REDOC_VERSION      := 3.0.1
# The npm packages of the TypeScript SDK (openapi-typescript, openapi-fetch, typescript), pinned by its lockfile.
TS_SDK             := sdk/typescript
DOCS_ASSETS_URL    := /api/docs/assets/
# The offline speech recogniser: installed by `make speech`, never by `make run`, which does not wait for
# several hundred MB of packages; make test and CI install them (and the recordings the tests use).
SPEECH_PACKAGES    := pocketsphinx pocketsphinx-en-us ffmpeg

.PHONY: build run speech docs schema test deploy-check test-short fuzz contract-proxy bench soak load generate generate-check spec-check spec-lint lint admin db-start db-stop docs-assets docs-check clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/loopwork

run: build
	@SPEECH_PACKAGES='$(SPEECH_PACKAGES)' ./internal/tools/run.sh $(BIN) $(DATA)

# speech installs the offline recogniser (as root on Debian); a running server picks it up when restarted.
speech:
	./internal/tools/packages.sh $(SPEECH_PACKAGES)

# docs rewrites the generated parts of docs/ from the code: the settings of internal/config, the task types
# of internal/engine/tasks and the package list. A test fails when the committed pages differ.
docs:
	$(GO) run ./internal/tools/docgen -root .

# schema migrates a fresh database (on a throwaway cluster unless TEST_DATABASE_URL/DATABASE_URL is set) and
# writes its pg_dump to db/schema.sql, for reading the schema without replaying the migrations. A test fails
# when the committed file differs.
schema:
	./internal/tools/with-test-db.sh $(GO) run ./internal/tools/schemadump -out db/schema.sql

# test runs go test through testreport, which passes its output on and ends it with the ten slowest tests,
# then go test's own package lines and exit status. jq runs the README's tour as written.
# The server binary that tests start as real processes is built once here (LOOPWORK_TEST_SERVER) rather than
# linked again by each of them. TESTP packages run at once: most of a package's time is spent waiting on
# PostgreSQL and on the server processes it starts, so more than one per core keeps both cores busy.
# go test's own vet pass is off (make lint runs go vet over everything, and CI runs both), and test
# binaries are linked without DWARF: nobody debugs them, and each of some seventy links is a second faster.
TESTP ?= 4
# The packages whose tests take longest are named first, so that go test starts them first instead of in
# the order of their paths (which left /v1's and the recogniser's for last, running alone at the end).
TEST_FIRST := ./internal/server/ ./internal/speech/ ./internal/v1/exports/ ./internal/v1/bulk/ ./internal/platform/executions/ \
	./internal/engine/run/ ./internal/deploy/ ./internal/replicas/ ./internal/v1/jobs/
# The S3 server the export tests run is built in the background from the start (versitygw.sh); its log
# goes to .data/versitygw.log.
test:
	@mkdir -p .data && (GO=$(GO) ./internal/tools/versitygw.sh >.data/versitygw.log 2>&1 &)
	@./internal/tools/packages.sh $(SPEECH_PACKAGES) pocketsphinx-testdata jq || echo "offline speech tests (and the README tour, without jq) will be skipped"
	$(GO) build -o bin/testreport ./internal/tools/testreport
	$(GO) build -o bin/loopwork-test ./cmd/loopwork
	LOOPWORK_TEST_SERVER=$(CURDIR)/bin/loopwork-test ./internal/tools/with-test-db.sh bin/testreport \
		$(GO) test -p $(TESTP) -vet=off -ldflags=-w -json -count=1 -timeout 20m $(TEST_FIRST) ./...

# fuzz runs each fuzz target for FUZZTIME, one after another on FUZZPARALLEL workers; `go test -fuzz` takes one
# target per run. A failing input is saved under the package's testdata/fuzz/<target>/ and replayed by every
# ordinary test run after. The job filter targets also run their SQL on PostgreSQL, so one is started as for
# make test.
FUZZTIME     ?= 30s
FUZZPARALLEL ?= 1
FUZZ_TARGETS ?= \
	internal/v1/filter:FuzzCompile internal/v1/filter:FuzzPath \
	internal/httpx:FuzzMask internal/httpx:FuzzScanJSON internal/httpx:FuzzPaging \
	internal/engine/dsl:FuzzValidateJSON internal/engine/dsl:FuzzGraph internal/engine/dsl:FuzzJQKey \
	internal/engine/dsl:FuzzParseTemplate \
	internal/csvsniff:FuzzPreview internal/csvsniff:FuzzScan \
	internal/platform/conversations:FuzzFrame internal/platform/storage:FuzzParseURI \
	internal/v1/exports:FuzzFlatten internal/v1/paging:FuzzNew internal/llm:FuzzBuiltin

fuzz:
	./internal/tools/with-test-db.sh bash -c 'set -e; for t in $(FUZZ_TARGETS); do \
		echo "== $$t ($(FUZZTIME))"; \
		$(GO) test -run "^$$" -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) -parallel $(FUZZPARALLEL) "./$${t%%:*}/"; \
	done'

# deploy-check builds the image's files with the Dockerfile's own commands and starts the binary on them
# alone (chrooted, when run as root), checks compose.yaml's settings, and runs a server on a streaming replica.
# make test runs all of it but the image's build (LOOPWORK_IMAGE), minutes of compiling; CI runs this too.
deploy-check:
	LOOPWORK_IMAGE=1 ./internal/tools/with-test-db.sh $(GO) test -count=1 -timeout 20m ./internal/deploy/

# contract-proxy puts a Stoplight Prism proxy (npm registry; the version is pinned in the test) per document in
# front of a real server on a throwaway database, runs a scenario over every operation of both documents
# through them, and fails on any answer Prism finds off its schema or any operation not called. Needs npx.
contract-proxy:
	LOOPWORK_PRISM=1 ./internal/tools/with-test-db.sh $(GO) test -count=1 -timeout 10m -run '^TestPrismContract$$' -v ./internal/server/

# bench runs every performance scenario once (flows, the engine, outside workers, reviews, durability with
# real server processes, and /v1 with a million jobs; several minutes) and prints BENCH lines; then the
# offline recogniser's word error rate in every accepted format, which fails above its documented bound.
# Its throwaway cluster commits durably (PG_DURABLE), so that its "one durable commit" baselines are that,
# and loads pg_stat_statements, so that the benches can say what the database spent its time on.
bench:
	PG_DURABLE=1 PG_PRELOAD=pg_stat_statements ./internal/tools/with-test-db.sh $(GO) test -run '^$$' -bench . -benchtime 1x -count=1 -timeout 60m ./internal/bench/
	$(GO) test -run '^$$' -bench '^BenchmarkSphinxWER$$' -benchtime 1x -count=1 -timeout 30m ./internal/speech/

# soak runs the load script's traffic against one server process for SOAK (default 30m) and fails when, after a
# warm-up, the last fifth's throughput falls below 85% of the first fifth's or its p99 rises over 1.5 times, or
# when memory, goroutines or database connections trend upwards (internal/bench/soak.go); it prints a sample
# every 30 s and the statements that took the database's time in the first and the last fifth. It always runs
# on a throwaway cluster of its own, which loads pg_stat_statements (TEST_DATABASE_URL and DATABASE_URL are
# ignored: a shared cluster would neither load it nor be quiet). Not part of CI.
SOAK ?= 30m
soak:
	TEST_DATABASE_URL= DATABASE_URL= PG_PRELOAD=pg_stat_statements LOOPWORK_SOAK=$(SOAK) \
		./internal/tools/with-test-db.sh $(GO) test -run '^$$' -bench Soak -benchtime 1x -count=1 -timeout 0 -v ./internal/bench/

# The generator reads documents that keep their generator settings (x-go-*); the served ones in gen/ do not.
# gen/ts is written from the served ones: their TypeScript types, then the client module over openapi-fetch,
# which also exports the types of FlowDefinition and its tasks by name. openapi/api/tasks.yaml, the task types' schemas, is written first from the task registry (taskspec).
generate: $(TS_SDK)/node_modules/.installed
	$(GO) run ./internal/tools/taskspec -out openapi/api/tasks.yaml
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && set -x && \
	$(GO) run ./internal/tools/specbundle -out gen -codegen "$$tmp" && \
	$(OAPI) -config openapi/v1/oapi-codegen.yaml "$$tmp/v1api.json" && \
	$(OAPI) -config openapi/api/oapi-codegen.yaml "$$tmp/platformapi.json"
	$(GO) run ./internal/tools/stubgen -in gen/v1api/v1api.gen.go -out gen/v1api/unimplemented.gen.go
	$(GO) run ./internal/tools/stubgen -in gen/platformapi/platformapi.gen.go -out gen/platformapi/unimplemented.gen.go
	@rm -rf gen/ts && mkdir gen/ts
	node $(TS_SDK)/generate.mjs gen/ts gen/platformapi/openapi.json gen/v1api/openapi.json
	$(GO) run ./internal/tools/tsclient -out gen/ts/index.ts -types Platform=FlowDefinition \
		Platform=gen/platformapi/openapi.json V1=gen/v1api/openapi.json

# npm ci installs exactly what the lockfile names, and again only when it or package.json changes.
$(TS_SDK)/node_modules/.installed: $(TS_SDK)/package.json $(TS_SDK)/package-lock.json
	cd $(TS_SDK) && npm ci --no-audit --no-fund --ignore-scripts
	@touch $@

# generate-check fails when the committed gen/ is not what `make generate` produces.
generate-check: generate
	@git diff --exit-code --stat -- gen/ || { echo "gen/ is stale: run make generate and commit the result"; exit 1; }
	@test -z "$$(git status --porcelain -- gen/)" || { git status --porcelain -- gen/; echo "gen/ has untracked files: run make generate and commit"; exit 1; }

# spec-check validates the contracts and compiles code generated from them, without touching gen/.
spec-check:
	./internal/tools/spec-check.sh

# spec-lint runs Spectral's OpenAPI ruleset over all three served documents; errors fail, warnings are shown.
spec-lint: generate
	@printf 'extends: ["spectral:oas"]\n' > $(DATA)/.spectral.yaml 2>/dev/null || { mkdir -p $(DATA) && printf 'extends: ["spectral:oas"]\n' > $(DATA)/.spectral.yaml; }
	npx --yes $(SPECTRAL) lint --ruleset $(DATA)/.spectral.yaml --fail-severity error \
		gen/platformapi/openapi.json gen/v1api/openapi.json gen/v1api/swagger.json

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

# load drives a running server (make run) with hey: submission, list and count at 16 clients.
load:
	./internal/tools/load.sh $(LOAD_URL)

# admin runs `loopwork admin $(ARGS)` with the settings `make run` keeps (its private cluster and secrets).
admin: build
	@./internal/tools/admin.sh $(BIN) $(DATA) $(ARGS)

db-start:
	@./internal/tools/pg.sh start $(DATA)/pg dev

db-stop:
	@./internal/tools/pg.sh stop $(DATA)/pg

# docs-assets refreshes the Swagger UI and ReDoc files the server embeds (pinned versions above). ReDoc's
# sidebar shows its vendor's logo from a CDN; the copy points it at the two small SVGs kept beside it instead,
# so the pages make no request off the server.
docs-assets:
	@tmp=$$(mktemp -d) && cd $$tmp && npm pack --silent swagger-ui-dist@$(SWAGGER_UI_VERSION) redoc@$(REDOC_VERSION) >/dev/null && \
	  mkdir s r && tar xzf swagger-ui-dist-$(SWAGGER_UI_VERSION).tgz -C s && tar xzf redoc-$(REDOC_VERSION).tgz -C r && \
	  cd - >/dev/null && d=internal/platform/docs/assets && \
	  cp $$tmp/s/package/{swagger-ui-bundle.js,swagger-ui-standalone-preset.js,swagger-ui.css,favicon-32x32.png} $$d/ && \
	  cp $$tmp/s/package/LICENSE $$d/swagger-ui.LICENSE && cp $$tmp/r/package/bundles/redoc.standalone.js $$d/ && \
	  sed -i 's#https://cdn.redoc.ly/redoc/logo-mini#$(DOCS_ASSETS_URL)redocly-logo-mini#g' $$d/redoc.standalone.js && \
	  cp $$tmp/r/package/LICENSE $$d/redoc.LICENSE && rm -rf $$tmp && echo "docs assets refreshed"

# docs-check opens Swagger UI and ReDoc on both interfaces by URL, and the e-mailed links' page, in a headless
# Chromium (Debian: apt-get install -y chromium; $CHROMIUM names another binary). It fails on a console
# error, a failed load or any request to a host other than the server, and when no Chromium is found.
docs-check:
	$(GO) vet -tags browser ./internal/server/ ./internal/testkit/browser/
	./internal/tools/with-test-db.sh $(GO) test -tags browser -count=1 -timeout 5m -run 'InBrowser' ./internal/server/

clean:
	rm -rf bin
