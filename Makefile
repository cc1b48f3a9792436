# Herald: the two commands a newcomer needs are `make run` and `make test` (see README.md).
# Dependencies install with `npm ci`, exactly as package-lock.json says, which it never rewrites (a clean
# clone stays clean). The lock holds every platform's optional packages (tests/process/lockfile.test.ts);
# after changing package.json, update it with `npm install` and commit both.
SHELL := /bin/bash
.DEFAULT_GOAL := help
SERVICES = vars="$$(scripts/ensure-services.sh)" && eval "$$vars"
export HERALD_DB_NAME ?= herald
# The built command; tests run the recipes with HERALD='node --import tsx src/cli.ts'.
HERALD ?= node dist/src/cli.js
# Every setting is checked before anything is made: a bad one stops here, before ensure-services
# creates a database or starts a server. The store and Redis URLs, which ensure-services finds
# afterwards, are checked as given, or stood in for when unset.
CHECK_CONFIG = SVC_DATABASE_URL="$${SVC_DATABASE_URL:-postgres://127.0.0.1/$$HERALD_DB_NAME}" \
  SVC_REDIS_URL="$${SVC_REDIS_URL:-redis://127.0.0.1:6379}" $(HERALD) check-config >/dev/null
# Herald itself says where to go once it listens (and names the setup step only while it is open).
START = $(CHECK_CONFIG) && $(SERVICES) && $(HERALD) migrate && exec $(HERALD) serve

.PHONY: help deps build sdk run run-built migrate reset-password test test-file test-unit lint typecheck codegen check-contract bench stop-services clean

help:
	@echo "make run    start Herald (api + scheduler + worker) with everything it needs"
	@echo "make test   run every check and test"
	@echo "            (one file: make test-file FILE=tests/integration/users.test.ts)"

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

deps: node_modules/.installed

build: deps sdk
	npm run --silent build

# The SDK (sdk/, @herald/sdk) built and packed as npm would publish it, from the contract's types
# as they are now, and remade only when its sources change (~10 s); the API serves it at
# /sdk/herald-sdk.tgz for `npx` (README: In a pipeline).
sdk: deps dist/sdk/herald-sdk.tgz

dist/sdk/herald-sdk.tgz: openapi.yaml codegen/generate.ts sdk/package.json sdk/tsconfig.build.json tsconfig.json $(shell find sdk/src -name '*.ts')
	npm run --silent codegen
	npm run --silent sdk:pack

codegen: deps
	npm run --silent codegen

check-contract: deps
	npm run --silent codegen:check

typecheck: deps
	npm run --silent typecheck

lint: deps
	npx eslint .
	npx redocly lint openapi.yaml --format=stylish 2>&1 | grep -v -i "deprecat\|node.js 2\|nodejs.org\|═\|║" ; test $${PIPESTATUS[0]} -eq 0

migrate: build
	@$(CHECK_CONFIG) && $(SERVICES) && $(HERALD) migrate

run: build
	@$(START)

# `make run` without the build (dist/ must be current).
run-built:
	@$(START)

# A lost password without mail: make reset-password EMAIL=ada@example.com (prints a temporary one).
reset-password: build
	@test -n "$(EMAIL)" || { echo "usage: make reset-password EMAIL=ada@example.com" >&2; exit 1; }
	@$(CHECK_CONFIG) && $(SERVICES) && $(HERALD) admin reset-password "$(EMAIL)"

# The tests also run a redis-server of their own (tests/integration/dependencies-down.test.ts) and
# curl (the README's examples, tests/process/readme.test.ts): ensure-services.sh installs them.
test test-file: export HERALD_TEST_TOOLS = 1

# Herald is built first (dist/, with the web UI): the tests that start the `herald` command start
# the built one, as `make run` does (HERALD_TEST_BUILT, tests/support/child-process.ts; a second
# less a start than through tsx). Then the web UI's browser tests (web/tests) in Debian's chromium.
test: deps check-contract typecheck lint sdk
	@npm run --silent build && HERALD_DB_NAME=postgres $(SERVICES) && HERALD_TEST_BUILT=1 npm run --silent test && npm run --silent test:web

# One test file (or several, or a Jest pattern), with the services `make test` uses; no lint/typecheck.
test-file: deps
	@test -n "$(FILE)" || { echo "usage: make test-file FILE=tests/integration/users.test.ts" >&2; exit 1; }
	@HERALD_DB_NAME=postgres $(SERVICES) && npm run --silent test -- $(FILE)

# Every benchmark; not the processes they start themselves (the limits' workers and queue-floor.ts,
# which wait for work and would never end alone) nor their shared support.
BENCH_CHILDREN = scripts/bench/support.ts scripts/bench/noop-worker.ts scripts/bench/minimal-worker.ts scripts/bench/queue-floor.ts
BENCHES = $(filter-out $(BENCH_CHILDREN),$(sort $(wildcard scripts/bench/*.ts)))

bench: build
	@$(SERVICES) && for b in $(BENCHES); do npx tsx $$b; done

stop-services:
	scripts/stop-services.sh

clean:
	rm -rf dist sdk/dist node_modules
