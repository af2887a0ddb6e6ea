# Match: make help lists the targets.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.ONESHELL:
.DEFAULT_GOAL := help
MAKEFLAGS += --warn-undefined-variables --no-builtin-rules

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: help
help: ## List the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sort | awk 'BEGIN {FS = ":.*## "}; {printf "  %-16s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	command -v $(PYTHON) >/dev/null || { echo "needs $(PYTHON) on PATH"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	# libs/ and services/ on the path as they are, whatever packages appear later
	$(BIN)/python -c 'import site, pathlib; pathlib.Path(site.getsitepackages()[0], "match-src.pth").write_text("$(CURDIR)/libs\n$(CURDIR)\n")'
	touch $(STAMP)

.PHONY: install
install: $(STAMP) web ## Create .venv, install the pinned dependencies and build the browser client

.PHONY: test
test: $(STAMP) prometheus ## Run the whole test suite (installs first if needed, Debian's prometheus too)
	$(BIN)/coverage erase
	$(BIN)/coverage run -m pytest --ignore=tests/web  # the browser's games: make test-web
	$(BIN)/coverage report --fail-under=100 --include='libs/match_rules/*'

.PHONY: test-fast
test-fast: $(STAMP) ## The pure and unit tests only: no nats-server, no stack (tests marked `stack` left out)
	$(BIN)/pytest --ignore=tests/web -m 'not stack' -q

# --- protobuf contract: proto/ -> libs/match/v1 (imported as `from match.v1 import race_pb2`) ---
# and web/src/gen/match/v1/*_pb.ts (protobuf-es v2: messages and service descriptors) ---------
PROTO_DIR := proto
PROTO_FILES = $(sort $(wildcard $(PROTO_DIR)/match/v1/*.proto))
PROTO_SERVICE_FILES = $(sort $(shell grep -l '^service ' $(PROTO_FILES)))
GEN_DIR := libs/match/v1
WEB_DIR := web
WEB_GEN_DIR := $(WEB_DIR)/src/gen/match/v1
WEB_NODE := $(WEB_DIR)/node_modules/.installed

# $(call protoc_python,OUT): write the modules of proto/ under OUT/match/v1 (messages and .pyi
# for every file, gRPC stubs only for the files that declare a service). No __init__.py: match
# and match.v1 are implicit namespace packages under libs/.
define protoc_python
$(BIN)/python -m grpc_tools.protoc -I$(PROTO_DIR) --python_out=$(1) --pyi_out=$(1) $(PROTO_FILES)
$(BIN)/python -m grpc_tools.protoc -I$(PROTO_DIR) --grpc_python_out=$(1) $(PROTO_SERVICE_FILES)
endef

# $(call protoc_es,OUT): the TypeScript of proto/ under OUT/match/v1, with the pinned
# protoc-gen-es of web/package-lock.json (connect-es v2 needs no other plugin).
define protoc_es
$(BIN)/python -m grpc_tools.protoc -I$(PROTO_DIR) --plugin=protoc-gen-es=$(WEB_DIR)/node_modules/.bin/protoc-gen-es --es_out=$(1) --es_opt=target=ts $(PROTO_FILES)
endef

.PHONY: generate
generate: $(STAMP) $(WEB_NODE) ## Generate Python and TypeScript (web/src/gen) code from proto/
	tmp=$$(mktemp -d)
	trap 'rm -rf "$$tmp"' EXIT
	mkdir -p "$$tmp/py" "$$tmp/ts"
	$(call protoc_python,$$tmp/py)
	$(call protoc_es,$$tmp/ts)
	rm -rf $(GEN_DIR) $(WEB_GEN_DIR)
	mkdir -p $(dir $(GEN_DIR)) $(dir $(WEB_GEN_DIR))
	cp -r "$$tmp/py/match/v1" $(GEN_DIR)
	cp -r "$$tmp/ts/match/v1" $(WEB_GEN_DIR)
	echo "generated $(GEN_DIR) and $(WEB_GEN_DIR) from $(words $(PROTO_FILES)) proto files"

.PHONY: checkgenerate
checkgenerate: $(STAMP) $(WEB_NODE) ## Fail when committed generated code (Python, TypeScript) differs from proto/
	tmp=$$(mktemp -d)
	trap 'rm -rf "$$tmp"' EXIT
	mkdir -p "$$tmp/py" "$$tmp/ts"
	$(call protoc_python,$$tmp/py)
	$(call protoc_es,$$tmp/ts)
	if ! diff -ru -x __pycache__ "$$tmp/py/match/v1" $(GEN_DIR); then
		echo "$(GEN_DIR) differs from $(PROTO_DIR)/ (diff above): run 'make generate' and commit it" >&2
		exit 1
	fi
	if ! diff -ru "$$tmp/ts/match/v1" $(WEB_GEN_DIR); then
		echo "$(WEB_GEN_DIR) differs from $(PROTO_DIR)/ (diff above): run 'make generate' and commit it" >&2
		exit 1
	fi
	echo "$(GEN_DIR) and $(WEB_GEN_DIR) match $(PROTO_DIR)/"

# --- the browser client: web/ -> web/dist (served by the lobby's web edge) ---------------------
WEB_SOURCES = $(shell find $(WEB_DIR)/src -name '*.ts' 2>/dev/null) $(WEB_DIR)/index.html $(WEB_DIR)/style.css

# npm ci again whenever package-lock.json is newer than the last install.
$(WEB_NODE): $(WEB_DIR)/package-lock.json
	command -v npm >/dev/null || { echo "needs Node 20+ and npm on PATH (for web/)"; exit 1; }
	cd $(WEB_DIR)
	npm ci --no-audit --no-fund
	touch node_modules/.installed

$(WEB_DIR)/dist/app.js: $(WEB_NODE) $(WEB_SOURCES)
	cd $(WEB_DIR)
	npm run --silent build

.PHONY: web
web: $(WEB_DIR)/dist/app.js ## Build the browser client into web/dist (npm ci first when package-lock.json changed)

# --- the browser client in a real browser: Debian's Chromium driven by Playwright --------------
# Debian's packages, installed when missing: Playwright downloads no browser. The emoji font
# draws the tiles' faces as a player's machine would (the screenshots in build/web-screens).
CHROMIUM := /usr/bin/chromium
EMOJI_FONT := /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf

.PHONY: test-web
test-web: $(STAMP) web web-unit ## The web client: its unit tests (web-unit), then whole games in Chromium (Playwright) against a real stack: tests/web
	tools/need-debian $(CHROMIUM) chromium
	tools/need-debian $(EMOJI_FONT) fonts-noto-color-emoji
	$(BIN)/pytest tests/web

.PHONY: web-unit
web-unit: $(WEB_NODE) ## Type-check the browser client (tsc) and run its unit tests (vitest): no browser, no stack
	cd $(WEB_DIR)
	npm run --silent check
	npm test

.PHONY: lint
lint: $(STAMP) checkgenerate ## ruff, mypy strict (libs, services, tools, the bench tests), buf lint
	$(BIN)/ruff check libs services tests
	$(BIN)/ruff format --check libs services tests
	$(BIN)/mypy
	$(BIN)/buf lint
	$(BIN)/buf format --diff --exit-code

# --- deployment ----------------------------------------------------------------------------------
# promtool (make deploy-check) and prometheus (tests/deploy/test_prometheus_live.py): Debian's
# package, installed when missing, with nothing left running (tools/need-debian).
.PHONY: prometheus
prometheus:
	tools/need-debian promtool prometheus
	tools/need-debian prometheus prometheus

.PHONY: deploy-check
deploy-check: $(STAMP) prometheus ## Check deploy/ offline: Kubernetes schemas, kustomize, promtool, the dashboard
	$(BIN)/python -m match_deploy.check

# --- running the system --------------------------------------------------------------------------
.PHONY: run
run: $(STAMP) web ## Start NATS (embedded unless NATS_URL is set) and the six services; Ctrl-C stops
	exec $(BIN)/python -m services.stack

.PHONY: run-cluster
run-cluster: $(STAMP) ## Three local NATS nodes (streams at R3) and two replicas of every service; Ctrl-C stops
	exec $(BIN)/python -m services.stack --cluster

.PHONY: chaos
chaos: $(STAMP) ## All five games on a fresh local cluster while replicas are killed; checks, audits them and the players projection, and reports the gaps players saw (not a test)
	$(BIN)/python -m match_chaos --out var

# The run removes its namespaces itself (and, first, those of earlier runs that are gone); the
# sweep after it is for a run that was SIGKILLed (the OOM killer): it removes only those whose
# owner is gone.
.PHONY: chaos-partition
chaos-partition: $(STAMP) ## Race and Concentration games while the NATS nodes' links are cut, flapped and slowed (root: network namespaces); checks and audits them (not a test)
	tools/need-debian nft nftables
	status=0
	$(BIN)/python -m match_chaos.partition --out var || status=$$?
	$(BIN)/python -c 'from match_launch.netns import sweep; sweep()'
	exit $$status

.PHONY: demo
GAME ?= race
demo: $(STAMP) ## Play a whole game against the running stack (make run first); GAME=concentration, GAME=match-cards, GAME=number-match or GAME=match-5
	$(BIN)/python -m match_client.demo --game $(GAME)

# --- the bot ---------------------------------------------------------------------------------------
.PHONY: bench-bot
bench-bot: $(STAMP) ## Measure the bot's strengths against baselines (not a test)
	$(BIN)/python -m match_botsim.bench --out var

# --- performance ------------------------------------------------------------------------------------
.PHONY: bench
bench: $(STAMP) ## Load the stack: the event loop by alternation, turns/s, latency, ledger lag, memory per table, fsync always vs group commit, every game's CPU per command (not a test)
	$(BIN)/python -m match_bench --out var

.PHONY: bench-sync
bench-sync: $(STAMP) ## What fsync on every append costs: the bare chain with and without it (not a test)
	$(BIN)/python -m match_bench.sync --out var

.PHONY: bench-reveal
bench-reveal: $(STAMP) ## The dealer's check that a game is over: batched reads against one per record (not a test)
	$(BIN)/python -m match_bench.reveal --out var

.PHONY: bench-solver
bench-solver: $(STAMP) ## Number Match's solver: board generation and hints against a plain search (not a test)
	$(BIN)/python -m match_bench.solver

.PHONY: bench-peer
bench-peer: $(STAMP) ## Our stack and a Colyseus peer side by side, same load shapes; npm ci's the peer (not a test)
	$(BIN)/python -m match_bench.peer --out var

.PHONY: mutation
mutation: $(STAMP) ## Mutation testing of every game's rules and the fenced append (mutmut; long, not a test)
	$(BIN)/python -m match_mutation
