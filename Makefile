# loopwork — build, run and test.
#
#   make run        build and start the server (starts a private PostgreSQL under .data/ when DATABASE_URL is unset)
#   make admin ARGS='mail-outbox --show-body'   loopwork admin … against what make run uses
#   make test       the whole test suite against a real PostgreSQL (throwaway cluster unless TEST_DATABASE_URL/DATABASE_URL is set)
#   make generate   regenerate gen/ from openapi/ (reproducible; CI fails when it changes anything)
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
DOCS_ASSETS_URL    := /api/docs/assets/

.PHONY: build run test test-short contract-proxy bench load generate generate-check spec-check spec-lint lint admin db-start db-stop docs-assets docs-check clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/loopwork

run: build
	@./internal/tools/run.sh $(BIN) $(DATA)

test:
	@./internal/tools/packages.sh pocketsphinx pocketsphinx-en-us pocketsphinx-testdata ffmpeg || echo "offline speech tests will be skipped"
	./internal/tools/with-test-db.sh $(GO) test -count=1 -timeout 20m ./...

# contract-proxy puts a Stoplight Prism proxy (npm registry; the version is pinned in the test) per document in
# front of a real server on a throwaway database, runs a scenario over every operation of both documents
# through them, and fails on any answer Prism finds off its schema or any operation not called. Needs npx.
contract-proxy:
	LOOPWORK_PRISM=1 ./internal/tools/with-test-db.sh $(GO) test -count=1 -timeout 10m -run '^TestPrismContract$$' -v ./internal/server/

# bench runs every performance scenario once (flows, the engine, outside workers, reviews, durability with
# real server processes, and /v1 with a million jobs; several minutes) and prints BENCH lines.
bench:
	./internal/tools/with-test-db.sh $(GO) test -run '^$$' -bench . -benchtime 1x -count=1 -timeout 60m ./internal/bench/

# The generator reads documents that keep their generator settings (x-go-*); the served ones in gen/ do not.
generate:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && set -x && \
	$(GO) run ./internal/tools/specbundle -out gen -codegen "$$tmp" && \
	$(OAPI) -config openapi/v1/oapi-codegen.yaml "$$tmp/v1api.json" && \
	$(OAPI) -config openapi/api/oapi-codegen.yaml "$$tmp/platformapi.json"
	$(GO) run ./internal/tools/stubgen -in gen/v1api/v1api.gen.go -out gen/v1api/unimplemented.gen.go
	$(GO) run ./internal/tools/stubgen -in gen/platformapi/platformapi.gen.go -out gen/platformapi/unimplemented.gen.go

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
